import { seededRandom, seedOf } from '../seeded-random';

/** A bibliographic record in the MARC 21 model: leader, control fields, data fields. */
export interface MarcRecord {
  /** 24 characters; positions 0–4 (length) and 12–16 (base address) are filled on encoding. */
  readonly leader: string;
  readonly controlFields: readonly (readonly [tag: string, value: string])[];
  readonly dataFields: readonly DataField[];
}

export interface DataField {
  readonly tag: string;
  readonly ind1: string;
  readonly ind2: string;
  readonly subfields: readonly (readonly [code: string, value: string])[];
}

const SURNAMES = [
  'Okafor',
  'Lindqvist',
  'Moreau',
  'Tanaka',
  'Hughes',
  'Novak',
  'Costa',
  'Ibrahim',
  'Keller',
  'Walsh',
];
const FORENAMES = [
  'Amara',
  'Erik',
  'Claire',
  'Haruki',
  'Megan',
  'Pavel',
  'Lucia',
  'Yusuf',
  'Greta',
  'Declan',
];
const TITLE_WORDS = [
  'rivers',
  'memory',
  'the city',
  'light',
  'migration',
  'archives',
  'silence',
  'machines',
  'the sea',
  'gardens',
  'borders',
  'winter',
];
const TITLE_FORMS = [
  'A history of',
  'Essays on',
  'The politics of',
  'Notes on',
  'Reading',
  'Mapping',
];
const SUBJECTS = [
  'Libraries',
  'Urban history',
  'Climate change',
  'Cataloging',
  'Oral history',
  'Migration',
  'Artificial intelligence',
  'Maritime history',
  'Botany',
  'Philosophy',
];
const PUBLISHERS = [
  ['London', 'Routledge'],
  ['Oxford', 'Oxford University Press'],
  ['Cambridge, MA', 'MIT Press'],
  ['Berlin', 'De Gruyter'],
  ['Chicago', 'University of Chicago Press'],
] as const;

/** Record `index` of a download, the same every time for the same seed text. */
export function sampleRecord(seedText: string, index: number): MarcRecord {
  const drawn = drawRecord(seededRandom(seedOf(`${seedText}:${String(index)}`)));
  const { year } = drawn;
  const controlNumber = `99${String(1000000 + index).padStart(9, '0')}0561`;
  return {
    leader: '00000nam a2200000 i 4500',
    controlFields: [
      ['001', controlNumber],
      ['005', `${String(year + 1)}0101120000.0`],
      [
        '008',
        `${String(year % 100).padStart(2, '0')}0101s${String(year)}    enk           000 0 eng d`,
      ],
    ],
    dataFields: dataFieldsOf(drawn),
  };
}

/** What a record draws from its seeded random, in the order it draws it. */
interface DrawnRecord {
  readonly year: number;
  readonly surname: string;
  readonly forename: string;
  readonly title: string;
  readonly subtitle: string;
  readonly place: string;
  readonly publisher: string;
  readonly pages: number;
  readonly subjects: readonly string[];
  readonly isbn: string;
}

function drawRecord(random: () => number): DrawnRecord {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const year = 1950 + Math.floor(random() * 75);
  const surname = pick(SURNAMES);
  const forename = pick(FORENAMES);
  const title = `${pick(TITLE_FORMS)} ${pick(TITLE_WORDS)}`;
  const subtitle = `${pick(TITLE_WORDS)} and ${pick(TITLE_WORDS)}`;
  const [place, publisher] = pick(PUBLISHERS);
  const pages = 80 + Math.floor(random() * 600);
  const subjects = [pick(SUBJECTS), pick(SUBJECTS)];
  const isbn = isbn13(random);
  return { year, surname, forename, title, subtitle, place, publisher, pages, subjects, isbn };
}

function dataFieldsOf(drawn: DrawnRecord): DataField[] {
  const { surname, forename, place, publisher } = drawn;
  return [
    { tag: '020', ind1: ' ', ind2: ' ', subfields: [['a', drawn.isbn]] },
    {
      tag: '100',
      ind1: '1',
      ind2: ' ',
      subfields: [
        ['a', `${surname}, ${forename},`],
        ['e', 'author.'],
      ],
    },
    {
      tag: '245',
      ind1: '1',
      ind2: '0',
      subfields: [
        ['a', `${drawn.title} :`],
        ['b', `${drawn.subtitle} /`],
        ['c', `${forename} ${surname}.`],
      ],
    },
    {
      tag: '264',
      ind1: ' ',
      ind2: '1',
      subfields: [
        ['a', `${place} :`],
        ['b', `${publisher},`],
        ['c', `${String(drawn.year)}.`],
      ],
    },
    {
      tag: '300',
      ind1: ' ',
      ind2: ' ',
      subfields: [
        ['a', `xii, ${String(drawn.pages)} pages :`],
        ['b', 'illustrations ;'],
        ['c', '24 cm'],
      ],
    },
    ...drawn.subjects.map((subject) => ({
      tag: '650',
      ind1: ' ',
      ind2: '0',
      subfields: [['a', `${subject}.`]] as const,
    })),
  ];
}

/** A 978 ISBN with a valid check digit. */
function isbn13(random: () => number): string {
  const digits = [9, 7, 8];
  for (let index = 0; index < 9; index += 1) digits.push(Math.floor(random() * 10));
  const sum = digits.reduce((total, digit, index) => total + digit * (index % 2 === 0 ? 1 : 3), 0);
  digits.push((10 - (sum % 10)) % 10);
  return digits.join('');
}
