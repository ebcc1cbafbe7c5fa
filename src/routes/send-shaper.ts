import jsonata from 'jsonata';
import type { CanonicalEvent } from '../events/canonical-event';
import type { EventKind } from '../events/kinds/event-kind';
import { eventKinds } from '../events/kinds/event-kinds';
import { withoutPersonalData } from '../events/personal-fields';
import { isRecord } from '../is-record';
import { DeliveryError } from './delivery-error';
import { directTransformOf } from './direct-transform';
import { dropPaths, pickPaths } from './event-paths';
import { jsonataErrorOf } from './route-send';
import type { RouteSend } from './route-send';
import { ENVELOPE_PATHS, subjectIdentifiersOf } from './subject-identifiers';

/** The bounds of one `transform:` evaluation. */
export interface TransformLimits {
  /** Wall time of one evaluation (JSONata's own guard, checked at every step). */
  readonly timeoutMs: number;
  /** Deepest nesting of evaluation steps (a runaway recursion). */
  readonly maxDepth: number;
  /** Longest sequence an expression may build (`[1..1e9]`). */
  readonly maxSequence: number;
  /** Longest JSON text the output may serialize to, in UTF-16 units. */
  readonly maxOutputLength: number;
}

const DEFAULT_TRANSFORM_LIMITS: TransformLimits = {
  timeoutMs: 250,
  maxDepth: 500,
  maxSequence: 100_000,
  maxOutputLength: 1_000_000,
};

/**
 * The body one event makes on a route (JSON text), or undefined when `send:` changes nothing (the
 * adapter then sends the canonical event). Rejects with a non-retryable DeliveryError when the
 * transform fails, runs out of time or size, or makes something that is not JSON: the same event
 * would fail the same way on every attempt.
 */
export type SendShaper = (event: CanonicalEvent) => Promise<string | undefined>;

export function createSendShaper(
  send: RouteSend | undefined,
  limits: TransformLimits = DEFAULT_TRANSFORM_LIMITS,
  kinds: readonly EventKind[] = eventKinds,
): SendShaper {
  if (send === undefined) return () => Promise.resolve(undefined);
  const { shape, fields, drop, mask } = send;
  const transform = send.transform === undefined ? undefined : compile(send.transform, limits);
  const unchanged = shape === 'full' && !fields && !drop && !mask && !transform;
  if (unchanged) return () => Promise.resolve(undefined);
  const identifiers = subjectIdentifiersOf(kinds);
  return async (original) => {
    // The mask is applied to the whole event first: the same result as after `shape`, `fields`
    // and `drop` (they only keep or remove), but a personal value is known even where its field
    // is not kept, so a link embedding it is masked all the same.
    const event = mask === 'patron' ? withoutPersonalData(original, kinds) : original;
    let body: unknown = shape === 'ids' ? idsOf(event, identifiers) : withoutMeta(event);
    if (fields) body = pickPaths(body, fields) ?? {};
    if (drop) body = dropPaths(body, drop);
    if (!transform) return JSON.stringify(body);
    return transform(body);
  };
}

/** `meta` is the listener's, not the platform's: a shaped body leaves it out. */
function withoutMeta(event: CanonicalEvent): Record<string, unknown> {
  const { meta: _meta, ...rest } = event;
  return rest;
}

/** The envelope and each subject's identifiers; a subject of an unlisted kind keeps its `id`. */
function idsOf(
  event: CanonicalEvent,
  identifiers: ReadonlyMap<string, readonly string[]>,
): unknown {
  const paths: string[] = [...ENVELOPE_PATHS];
  for (const [key, value] of Object.entries(event)) {
    if (key === 'meta' || !isRecord(value)) continue;
    paths.push(...(identifiers.get(key) ?? [`${key}.id`]));
  }
  return pickPaths(event, paths) ?? {};
}

function compile(expression: string, limits: TransformLimits): (input: unknown) => Promise<string> {
  const compiled = jsonata(expression, {
    timeout: limits.timeoutMs,
    stack: limits.maxDepth,
    sequence: limits.maxSequence,
  });
  // An object of plain paths is evaluated directly where JSONata would make the same (most inputs).
  const direct = directTransformOf(compiled.ast());
  return async (input) => {
    let output: unknown = direct?.(input);
    if (output !== undefined) return jsonTextOf(output, limits.maxOutputLength);
    try {
      output = await compiled.evaluate(input);
    } catch (error) {
      throw new DeliveryError(`transform failed: ${reasonOf(error)}`, {
        retryable: false,
        shaping: true,
      });
    }
    return jsonTextOf(output, limits.maxOutputLength);
  };
}

/** JSONata's guards (time, depth, sequence length) quote only the limit. */
const GUARD_CODES = new Set(['D1011', 'D1012', 'D2014', 'D2015']);

/**
 * The code and position of a JSONata error; the message only for a guard: other messages may
 * quote a value of the event (a patron's name in `$number(name)`), and the reason is logged.
 */
function reasonOf(error: unknown): string {
  const { code, position, message } = jsonataErrorOf(error);
  if (GUARD_CODES.has(code)) return `${code} ${message}`;
  return `${code}${position === undefined ? '' : ` at ${String(position)}`} (a JSONata error code)`;
}

/** The output as JSON text, if it is JSON and not too long. */
function jsonTextOf(output: unknown, maxLength: number): string {
  if (output === undefined) {
    throw new DeliveryError('transform failed: the expression produced nothing', {
      retryable: false,
      shaping: true,
    });
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(output, (_key, value: unknown) => {
      if (isFunction(value)) throw new FunctionOutput();
      return value;
    });
  } catch (error) {
    if (error instanceof FunctionOutput) {
      throw new DeliveryError('transform failed: the output is a function, not JSON', {
        retryable: false,
        shaping: true,
      });
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new DeliveryError(`transform failed: the output is not JSON (${reason})`, {
      retryable: false,
      shaping: true,
    });
  }
  if (text.length > maxLength) {
    throw new DeliveryError(
      `transform failed: the output is ${String(text.length)} characters, over the limit of ${String(maxLength)}`,
      { retryable: false, shaping: true },
    );
  }
  return text;
}

class FunctionOutput extends Error {}

/** A JSONata lambda or native function is an object with a marker (or a JS function). */
function isFunction(value: unknown): boolean {
  return (
    typeof value === 'function' ||
    (isRecord(value) && (value._jsonata_lambda === true || value._jsonata_function === true))
  );
}
