import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The JSON types a field may have (JSON null passes any: a value that is not there). */
export type FieldType = 'string' | 'number' | 'boolean' | 'object' | 'array';
const TYPES: readonly FieldType[] = ['string', 'number', 'boolean', 'object', 'array'];

/** One row of a line table: a message (or a pattern of one), its levels and the fields it may carry. */
export interface ReferenceLine {
  readonly message: string;
  readonly matches: RegExp;
  readonly levels: readonly string[];
  readonly fields: ReadonlySet<string>;
}

/** docs/logs.md's reference: every field once with its type, the fields on every line, every line. */
export interface LogReference {
  readonly types: ReadonlyMap<string, FieldType>;
  readonly common: ReadonlySet<string>;
  readonly lines: readonly ReferenceLine[];
}

const LOG_REFERENCE_PATH = join(__dirname, '../../../docs/logs.md');

/** Cells of a Markdown table row, or undefined for a line that is not one (or a rule). */
function cellsOf(row: string): string[] | undefined {
  if (!row.startsWith('|') || /^\|[\s|:-]+\|$/.test(row)) return undefined;
  return row
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** The backticked names of a cell: `a`, `b` → [a, b]. */
const namesOf = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');

/** A message cell as a whole-string pattern: `<…>` stands for any text. */
function patternOf(message: string): RegExp {
  const parts = message.split(/<[^>]+>/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.+')}$`);
}

/**
 * Reads the reference part of docs/logs.md (from `## Reference` to the next `## `): tables headed
 * `| Field | Type | …` (the dictionary; under `### Fields on every line` they are the common
 * ones) and `| Message | Level | Fields |` (the lines).
 */
export function readLogReference(text = readFileSync(LOG_REFERENCE_PATH, 'utf8')): LogReference {
  const start = text.indexOf('\n## Reference');
  if (start < 0) throw new Error('docs/logs.md has no "## Reference" section');
  const end = text.indexOf('\n## ', start + 1);
  const types = new Map<string, FieldType>();
  const common = new Set<string>();
  const lines: ReferenceLine[] = [];
  let heading = '';
  let header: string[] = [];
  for (const row of text.slice(start, end < 0 ? undefined : end).split('\n')) {
    if (row.startsWith('### ')) heading = row;
    const cells = cellsOf(row.trim());
    if (cells === undefined) continue;
    if (cells[0] === 'Field' || cells[0] === 'Message') {
      header = cells;
      continue;
    }
    if (header[0] === 'Field')
      addField(types, cells, heading.includes('every line') ? common : undefined);
    if (header[0] === 'Message') lines.push(lineOf(cells));
  }
  return { types, common, lines };
}

function addField(types: Map<string, FieldType>, cells: string[], common?: Set<string>): void {
  const [name] = namesOf(cells[0] ?? '');
  const type = (cells[1] ?? '').replace(/`/g, '') as FieldType;
  if (name === undefined) throw new Error(`a field row without a name: ${cells.join(' | ')}`);
  if (!TYPES.includes(type))
    throw new Error(`field ${name}: type "${type}" is not one of ${TYPES.join(', ')}`);
  if (types.has(name)) throw new Error(`field ${name} is named twice`);
  types.set(name, type);
  common?.add(name);
}

function lineOf(cells: string[]): ReferenceLine {
  const [message] = namesOf(cells[0] ?? '');
  if (message === undefined) throw new Error(`a line row without a message: ${cells.join(' | ')}`);
  return {
    message,
    matches: patternOf(message),
    levels: (cells[1] ?? '').split(/[\s,/]+/).filter((one) => one !== ''),
    // A field's values are given in brackets after it: `outcome` (`done`, `failed`).
    fields: new Set(namesOf((cells[2] ?? '').replace(/\([^)]*\)/g, ''))),
  };
}
