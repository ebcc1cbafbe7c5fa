import { z } from 'zod';
import { badRequest } from './sandbox-error';

/**
 * How areas use it: `const { limit, offset } = parseListQuery(req.query)` when they need the page
 * before building it; most areas just call `sendList` (respond.ts), which does this itself.
 *
 * spec §2 and §8: limit is an integer 0–100 (default 10), offset an integer ≥ 0 (default 0).
 * A bad value is a 400 with 40166410 ("parameter value invalid", spec §7 rule 2) naming the
 * parameter — the code the spec uses for invalid parameter values across areas.
 */
export const INVALID_PARAMETER_VALUE = '40166410';

export interface ListQuery {
  readonly limit: number;
  readonly offset: number;
}

const integerText = z.string().regex(/^\d+$/);

export function parseListQuery(query: Record<string, unknown>): ListQuery {
  return {
    limit: parseBounded(query.limit, 'limit', 10, 100),
    offset: parseBounded(query.offset, 'offset', 0, Number.MAX_SAFE_INTEGER),
  };
}

function parseBounded(raw: unknown, name: string, fallback: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const parsed = integerText.safeParse(raw);
  const value = parsed.success ? Number(parsed.data) : Number.NaN;
  if (!Number.isSafeInteger(value) || value > max) {
    throw badRequest(
      INVALID_PARAMETER_VALUE,
      `Parameter value invalid: ${name} (an integer from 0 to ${String(max)})`,
    );
  }
  return value;
}

/** The page of `items` the query asks for. */
export function pageOf<T>(items: readonly T[], { limit, offset }: ListQuery): T[] {
  return items.slice(offset, offset + limit);
}
