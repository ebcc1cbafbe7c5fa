import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Reads the operation tables of the service description's §4 once and writes them as a fixture
 * (packages/client/test/fixtures/spec-operations.json), so the endpoint-table test checks the client's table
 * against the spec without reading anything outside the repository.
 *
 *   npx tsx packages/client/scripts/extract-spec-operations.ts <path/to/service-interface.md> [path/to/out.json]
 *
 * The spec's path is required: the description is not part of the repository.
 *
 * Run it again when the spec changes, and commit the fixture with the change it causes.
 */

/** One row of a §4 table, as the spec writes it; `codes` holds the codes of a shared table it refers to. */
export interface SpecOperation {
  readonly section: string;
  readonly route: string;
  readonly method: string;
  /** Relative to `/svcws/v1` (the spec's `P`), placeholders as written. */
  readonly path: string;
  /** The "Query parameters / request body" cell, verbatim. */
  readonly parameters: string;
  /** The "Response" cell, verbatim. */
  readonly response: string;
  /** The row's 400 codes, its own and those of the shared table it names, sorted. */
  readonly codes: readonly string[];
}

/** "Job submit 400 codes:", "Invoice save codes (create and update):" and the table under it. */
export interface SharedCodeTable {
  readonly name: string;
  readonly codes: readonly { code: string; meaning: string }[];
}

export interface SpecOperations {
  readonly source: string;
  readonly sharedCodeTables: readonly SharedCodeTable[];
  readonly operations: readonly SpecOperation[];
}

interface RawRow extends Omit<SpecOperation, 'codes'> {
  readonly line: number;
  readonly codeCell: string;
}

interface RawTable extends SharedCodeTable {
  readonly line: number;
}

/** §4 of the spec's markdown, as the fixture's content. */
export function extractSpecOperations(markdown: string, source: string): SpecOperations {
  const lines = sectionFour(markdown);
  const tables = sharedTables(lines);
  const operations = operationRows(lines).map((row): SpecOperation => {
    const { line: _line, codeCell: _codeCell, ...fields } = row;
    return { ...fields, codes: codesOf(row, tables) };
  });
  return {
    source,
    sharedCodeTables: tables.map(({ name, codes }) => ({ name, codes })),
    operations,
  };
}

function sectionFour(markdown: string): string[] {
  const start = markdown.indexOf('\n## 4. ');
  const end = markdown.indexOf('\n## 5. ');
  if (start < 0 || end < start) throw new Error('no section 4 found');
  return markdown.slice(start, end).split('\n');
}

function cellsOf(line: string): string[] {
  return line
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
}

function operationRows(lines: readonly string[]): RawRow[] {
  let section = '';
  return lines.flatMap((text, line): RawRow[] => {
    const heading = /^### (4\.\d+)/.exec(text);
    if (heading) section = heading[1] ?? '';
    const match = /^\| (GET|POST|PUT|DELETE) P(\/\S*) \|/.exec(text);
    if (match === null) return [];
    const [method = '', routePath = ''] = [match[1], match[2]];
    const cells = cellsOf(text);
    return [
      {
        section,
        route: `${method} ${routePath}`,
        method,
        path: routePath,
        parameters: cells[1] ?? '',
        response: cells[2] ?? '',
        codeCell: cells[3] ?? '',
        line,
      },
    ];
  });
}

function sharedTables(lines: readonly string[]): RawTable[] {
  const tables: RawTable[] = [];
  lines.forEach((text, line) => {
    const heading = /^([A-Z][\w ]*? codes)\b[^|]*:$/.exec(text);
    if (heading === null) return;
    const codes: { code: string; meaning: string }[] = [];
    for (let next = line + 1; next < lines.length; next += 1) {
      const row = lines[next] ?? '';
      if (row.trim() === '') {
        if (codes.length > 0) break;
        continue;
      }
      if (!row.startsWith('|')) break;
      const [codeCell = '', meaning = ''] = cellsOf(row);
      for (const code of numbersIn(codeCell)) codes.push({ code, meaning });
    }
    tables.push({ name: (heading[1] ?? '').toLowerCase(), line, codes });
  });
  return tables;
}

function numbersIn(text: string): string[] {
  return [...text.matchAll(/\b\d{5,}\b/g)].map((match) => match[0]);
}

/**
 * The row's own codes plus those of the shared table it points to: "see below" names the next
 * table, otherwise the longest table name the cell contains. "(60220 is not listed here)" removes
 * a code, and "general error (update operations)" counts for the PUT rows only.
 */
function codesOf(row: RawRow, tables: readonly RawTable[]): string[] {
  const excludedPattern = /\((\d+) is not listed here\)/g;
  const excluded = new Set([...row.codeCell.matchAll(excludedPattern)].map((match) => match[1]));
  const own = numbersIn(row.codeCell.replace(excludedPattern, ''));
  const cell = row.codeCell.toLowerCase();
  const referenced = cell.includes('see below')
    ? tables.find((table) => table.line > row.line)
    : tables
        .filter((table) => cell.includes(table.name))
        .sort((a, b) => b.name.length - a.name.length)[0];
  const shared = (referenced?.codes ?? [])
    .filter((entry) => !entry.meaning.includes('(update operations)') || row.method === 'PUT')
    .map((entry) => entry.code)
    .filter((code) => !excluded.has(code));
  return [...new Set([...own, ...shared])].sort();
}

async function main(argv: readonly string[]): Promise<void> {
  const packageRoot = path.resolve(__dirname, '..');
  const [spec] = argv;
  if (spec === undefined) throw new Error('usage: extract-spec-operations <spec.md> [out.json]');
  const specPath = path.resolve(spec);
  const outPath = path.resolve(
    argv[1] ?? path.join(packageRoot, 'test/fixtures/spec-operations.json'),
  );
  const markdown = readFileSync(specPath, 'utf8');
  const version = /interface description carries the version (\d+(?:\.\d+)*)/.exec(markdown)?.[1];
  const source = `service-interface.md §4${version ? ` (version ${version})` : ''}`;
  const extracted = extractSpecOperations(markdown, source);
  // Written as `npm run check` wants it, so a rerun on an unchanged spec changes nothing.
  // Imported here: prettier loads its plugins by dynamic import, which jest (testing the above) lacks.
  const { format, resolveConfig } = await import('prettier');
  const options = (await resolveConfig(outPath)) ?? {};
  writeFileSync(
    outPath,
    await format(JSON.stringify(extracted), { ...options, filepath: outPath }),
  );
  process.stdout.write(`${String(extracted.operations.length)} operations -> ${outPath}\n`);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exitCode = 1;
  });
}
