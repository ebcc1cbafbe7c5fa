import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '../..');
const PAGE = 'docs/platform-interface.md';

/** Where comments and docs cite the platform interface ("spec §6.2 rule 3"). */
function citingFiles(): string[] {
  const packages = readdirSync(join(ROOT, 'packages')).map((name) => join('packages', name));
  const roots = ['src', 'scripts', 'docs', ...packages.map((dir) => join(dir, 'src'))];
  const files = roots.flatMap((dir) => filesUnder(join(ROOT, dir)));
  const readmes = ['README.md', ...packages.map((dir) => join(dir, 'README.md'))];
  return [...files, ...readmes.map((file) => join(ROOT, file))];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|md)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

interface Citation {
  readonly file: string;
  readonly section: string;
  readonly rules: readonly number[];
}

/** `§4.3`, `§ 7 rule 2`, `§4.3 rules 1-2`, `§4.6 rules 1–5`; not another document's (`RFC 9110 §10.2.3`). */
const CITATION =
  /(RFC \d+ )?§ ?(\d+(?:\.\d+)*)(?:,? rules? (\d+)(?:\s*(?:-|–|and)\s*(?:rule )?(\d+))?)?/g;

function citationsIn(file: string): Citation[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(CITATION)]
    .filter((match) => match[1] === undefined)
    .map((match) => ({
      file: relative(ROOT, file),
      section: match[2] ?? '',
      rules: [match[3], match[4]].filter((rule) => rule !== undefined).map(Number),
    }));
}

/** The page's sections (`## §4.3 Jobs`), each with the numbers of its list items. */
function sectionsOfPage(): Map<string, Set<number>> {
  const sections = new Map<string, Set<number>>();
  let items = new Set<number>();
  for (const line of readFileSync(join(ROOT, PAGE), 'utf8').split('\n')) {
    const heading = /^#{2,4} §(\d+(?:\.\d+)*) /.exec(line);
    const item = /^(\d+)\. /.exec(line);
    if (heading?.[1] !== undefined) {
      items = new Set<number>();
      sections.set(heading[1], items);
    } else if (item?.[1] !== undefined) {
      items.add(Number(item[1]));
    }
  }
  return sections;
}

describe('docs/platform-interface.md, where every "spec §" points', () => {
  const sections = sectionsOfPage();
  const citations = citingFiles().flatMap(citationsIn);

  it('finds the citations it checks', () => {
    expect(citations.length).toBeGreaterThan(100);
    expect(sections.size).toBeGreaterThan(20);
  });

  it('has a section for every § number a comment or doc cites', () => {
    const missing = citations
      .filter((citation) => !sections.has(citation.section))
      .map((citation) => `${citation.file}: §${citation.section}`);

    expect([...new Set(missing)]).toEqual([]);
  });

  it('has every cited rule as an item of its section, or as a section of its own (§7.2)', () => {
    const missing = citations.flatMap((citation) =>
      citation.rules
        .filter(
          (rule) =>
            !sections.get(citation.section)?.has(rule) &&
            !sections.has(`${citation.section}.${String(rule)}`),
        )
        .map((rule) => `${citation.file}: §${citation.section} rule ${String(rule)}`),
    );

    expect([...new Set(missing)]).toEqual([]);
  });
});
