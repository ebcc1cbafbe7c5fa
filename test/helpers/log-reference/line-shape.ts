import type { FieldType } from './log-reference';

/** What the reference holds a line to: its process, level, message and each field's JSON type. */
export interface LineShape {
  readonly process: string;
  readonly level: string;
  readonly msg: string;
  readonly fields: Readonly<Record<string, FieldType | 'null'>>;
}

const LEVELS: Readonly<Record<number, string>> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

function typeOf(value: unknown): FieldType | 'null' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return type;
  return 'object';
}

/** A pino line's shape; undefined for one below info (the reference covers info and above). */
export function shapeOf(
  line: Readonly<Record<string, unknown>>,
  process?: string,
): LineShape | undefined {
  const level = typeof line.level === 'number' ? line.level : 0;
  if (level < 30) return undefined;
  return {
    process: process ?? String(line.name),
    level: LEVELS[level] ?? String(level),
    msg: String(line.msg),
    fields: Object.fromEntries(Object.entries(line).map(([name, value]) => [name, typeOf(value)])),
  };
}

/** One key per distinct shape, so a run's thousands of lines keep a few dozen shapes. */
export const shapeKey = (shape: LineShape): string =>
  JSON.stringify([shape.process, shape.level, shape.msg, Object.entries(shape.fields).sort()]);
