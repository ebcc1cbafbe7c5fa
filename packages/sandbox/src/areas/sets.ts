import { sendBody, sendList } from '../respond';
import type { SandboxArea, SandboxContext } from '../sandbox-context';
import { badRequest } from '../sandbox-error';
import { code, objectBody, textAt, type Body } from './body-fields';
import { codesOf } from './code-table-seed';
import { createIdSequence, createKeyedStore, pick, randomInt } from './keyed-store';
import { enumParam, textParam } from './query-rules';
import { matchesSearch, recordValues, searchParam } from './search-query';

const INVALID = '40166410';
const SET_TYPES = ['ITEMIZED', 'LOGICAL'] as const;
const ORIGINS = ['UI', 'UI_CZ'] as const;
const SEARCH_FIELDS = ['created_by', 'name'];
/** spec §4.6 rule 2: logical sets exist for inventory entities, users and vendors only. */
const LOGICAL_CONTENT = ['BIB_MMS', 'ITEM', 'PORTFOLIO', 'IEP', 'HOLDING', 'USER', 'VENDOR'];
/** Job-instance line types a metadata-import based set may take as its population (rule 4). */
const POPULATIONS = ['TOTAL_RECORDS_IMPORTED', 'NEW_RECORDS', 'MERGED_RECORDS', 'REJECTED_RECORDS'];

/** Sets: list and create (itemized, logical, from a logical set, from a job, combined), spec §4.6. */
export const setsArea: SandboxArea = (router, ctx) => {
  const nextId = createIdSequence(ctx.random, '0561');
  const setNotFound = (id: string) => badRequest('60107', `Invalid set id: ${id}`);
  const sets = createKeyedStore<Body>(setNotFound, seedSets(ctx, nextId));

  router.get('/conf/sets', (req, res) => {
    const contentType = enumParam(
      req.query,
      'content_type',
      ['', ...codesOf('SetContentType')],
      '',
      INVALID,
    );
    const setType = enumParam(req.query, 'set_type', ['', ...SET_TYPES], '', INVALID);
    const origin = enumParam(req.query, 'set_origin', ORIGINS, 'UI', INVALID);
    const terms = searchParam(req.query, SEARCH_FIELDS, '60106');
    const items = sets
      .list()
      .filter(
        (set) =>
          (contentType === '' || textAt(set, 'content') === contentType) &&
          (setType === '' || textAt(set, 'type') === setType) &&
          textAt(set, 'origin') === origin &&
          matchesSearch(set, terms, SEARCH_FIELDS, recordValues),
      );
    sendList(req, res, items, { itemKey: 'set' });
  });

  router.post('/conf/sets', (req, res) => {
    const body = objectBody(req.body, INVALID);
    const name = textAt(body, 'name');
    if (name === undefined) throw badRequest(INVALID, 'Mandatory field is missing: name');
    const content = textAt(body, 'content') ?? '';
    if (!codesOf('SetContentType').includes(content)) {
      throw badRequest(INVALID, `Invalid content: ${content}`);
    }
    const population = textParam(req.query, 'population', INVALID);
    // spec §4.6 shows no codes for the create: every refusal is 40166410 (§7 rule 2, invalid
    // value), an unknown or wrong set1/set2/from_logical_set included — not the list's 60106/60107.
    const setOf = (id: string) =>
      sets.get(id, () => badRequest(INVALID, `Parameter value invalid: no set ${id}`));
    const members = membersOf(body, content, population, setOf, ctx.random);
    const id = nextId();
    const set = sets.put(id, {
      id,
      name,
      description: textAt(body, 'description'),
      type: code(members.type),
      content: code(content),
      private: textAt(body, 'private') === 'true',
      status: code('ACTIVE'),
      origin: code(enumParam({ o: textAt(body, 'origin') }, 'o', ORIGINS, 'UI', INVALID)),
      query: members.query,
      number_of_members: { value: members.count },
      created_by: textAt(body, 'created_by') ?? 'api',
      created_date: ctx.now().toISOString(),
    });
    sendBody(req, res, set, { xmlRoot: 'set' });
  });
};

interface Members {
  readonly type: 'ITEMIZED' | 'LOGICAL';
  readonly count: number;
  readonly query?: string;
}

/** spec §4.6 rules 1–5: what the new set holds. */
function membersOf(
  body: Body,
  content: string,
  population: string | undefined,
  getSet: (id: string) => Body,
  random: () => number,
): Members {
  const type = enumParam({ t: textAt(body, 'type') }, 't', SET_TYPES, 'ITEMIZED', INVALID);
  const set1 = textAt(body, 'set1');
  const set2 = textAt(body, 'set2');
  if (set1 !== undefined || set2 !== undefined) {
    // rule 5: two existing sets of the same content are combined.
    const [first, second] = [getSet(set1 ?? ''), getSet(set2 ?? '')];
    if (textAt(first, 'content') !== content || textAt(second, 'content') !== content) {
      throw badRequest(INVALID, 'Combined sets must have the content of the new set');
    }
    return { type: 'ITEMIZED', count: countOf(first) + countOf(second) };
  }
  if (type === 'LOGICAL') {
    if (!LOGICAL_CONTENT.includes(content)) {
      throw badRequest(INVALID, `A logical set is not supported for ${content}`);
    }
    const query = textAt(body, 'query');
    if (query === undefined) throw badRequest(INVALID, 'A logical set needs a query');
    return { type, count: randomInt(random, 1, 5000), query };
  }
  const fromLogical = textAt(body, 'from_logical_set');
  if (fromLogical !== undefined) {
    // rule 3: an itemized set filled from a logical one.
    const logical = getSet(fromLogical);
    if (textAt(logical, 'type') !== 'LOGICAL') {
      throw badRequest(INVALID, `Set ${fromLogical} is not a logical set`);
    }
    return { type, count: countOf(logical) };
  }
  const jobInstance = textAt(body, 'job_instance');
  if (jobInstance !== undefined) {
    // rule 4: bibliographic records of a metadata import job instance.
    if (content !== 'BIB_MMS') throw badRequest(INVALID, 'A job-based set holds BIB_MMS records');
    if (population === undefined || !POPULATIONS.includes(population)) {
      throw badRequest(INVALID, `Invalid population: ${population ?? '(missing)'}`);
    }
    return { type, count: randomInt(random, 1, 200) };
  }
  return { type, count: 0 }; // rule 1: created empty.
}

function countOf(set: Body): number {
  return Number(textAt(set, 'number_of_members') ?? 0);
}

function seedSets(ctx: SandboxContext, nextId: () => string): [string, Body][] {
  const rows: [string, string, 'ITEMIZED' | 'LOGICAL', 'UI' | 'UI_CZ'][] = [
    ['New books 2025', 'BIB_MMS', 'LOGICAL', 'UI'],
    ['Damaged items', 'ITEM', 'ITEMIZED', 'UI'],
    ['Expired users', 'USER', 'LOGICAL', 'UI'],
    ['Weeding candidates', 'ITEM', 'ITEMIZED', 'UI'],
    ['E-book portfolios', 'PORTFOLIO', 'LOGICAL', 'UI'],
    ['Active vendors', 'VENDOR', 'LOGICAL', 'UI'],
    ['Open orders', 'PO_LINE', 'ITEMIZED', 'UI'],
    ['Community zone titles', 'BIB_MMS', 'ITEMIZED', 'UI_CZ'],
  ];
  return rows.map(([name, content, type, origin]) => {
    const id = nextId();
    return [
      id,
      {
        id,
        name,
        type: code(type),
        content: code(content),
        origin: code(origin),
        status: code('ACTIVE'),
        private: false,
        query: type === 'LOGICAL' ? `${content} where all CONTAINS *` : undefined,
        number_of_members: { value: randomInt(ctx.random, 5, 900) },
        created_by: pick(ctx.random, ['jsmith', 'acq_admin', 'cataloger1']),
      },
    ];
  });
}
