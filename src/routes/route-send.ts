import jsonata from 'jsonata';
import { z } from 'zod';
import { EVENT_PATH } from './match-where';

const paths = z
  .array(
    z.string().regex(EVENT_PATH, 'a path of the event (names joined by dots, e.g. bib.mms_id)'),
  )
  .min(1, 'at least one path');

/** Longest `transform:` accepted: an expression for a receiver's shape, not a program. */
const TRANSFORM_MAX_LENGTH = 10_000;

/**
 * `send:` — what a route sends of each event, applied in this order: `shape`, `fields` (keep
 * only), `drop`, `mask`, `transform` (JSONata, last). Absent: the canonical event, as before.
 */
export const RouteSend = z.strictObject({
  /** `full`: the canonical event; `ids`: its envelope and its subject's identifiers. */
  shape: z.enum(['full', 'ids']).default('full'),
  fields: paths.optional(),
  drop: paths.optional(),
  /**
   * `patron`: no field that names or reaches a person, and no string embedding such a value
   * (src/events/personal-fields.ts: the one list the history uses as well).
   */
  mask: z.enum(['patron']).optional(),
  transform: z
    .string()
    .min(1)
    .max(TRANSFORM_MAX_LENGTH)
    .superRefine((expression, context) => {
      const problem = transformProblemOf(expression);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
});
export type RouteSend = z.infer<typeof RouteSend>;

/**
 * Why JSONata refuses an expression, by its error code and position only: the message can quote
 * the expression, and no value of the file goes in a message.
 */
function transformProblemOf(expression: string): string | undefined {
  try {
    jsonata(expression);
    return undefined;
  } catch (error) {
    const { code, position } = jsonataErrorOf(error);
    return `not a JSONata expression (${code}${position === undefined ? '' : ` at ${String(position)}`})`;
  }
}

/** JSONata throws plain objects `{ code, position, message }`, not Errors. */
export function jsonataErrorOf(error: unknown): {
  code: string;
  position: number | undefined;
  message: string;
} {
  const record =
    typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  return {
    code: typeof record.code === 'string' ? record.code : 'error',
    position: typeof record.position === 'number' ? record.position : undefined,
    message:
      typeof record.message === 'string'
        ? record.message
        : error instanceof Error
          ? error.message
          : String(error),
  };
}
