import { isRecord } from '../is-record';

/**
 * An evaluation of the simplest transforms without JSONata's evaluator: what the expression makes
 * of `input`, or undefined when this input needs the evaluator (JSONata's sequence rules apply).
 */
type DirectTransform = (input: unknown) => Record<string, unknown> | undefined;

/** The keys a node of the parsed expression may have for the direct form; any other: not direct. */
const PLAIN_NODE_KEYS: ReadonlySet<string> = new Set(['type', 'value', 'position', 'lhs', 'steps']);

/** Keys JSONata refuses in an object constructor (D1013): left to it, so it says so. */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['_jsonata_lambda', '_jsonata_function']);

/**
 * The direct form of an expression that is an object of plain paths, such as
 * `{ "id": id, "loan": item_loan.loan_id }` — string keys, each named once, and paths of names
 * with no predicate, function, variable or operator; undefined for any other expression.
 *
 * JSONata evaluates every step asynchronously (a promise, a frame and a sequence per step): for
 * this form that costs some 30 µs per event, the lookups themselves well under one. The result is
 * what JSONata makes (src/routes/send-shaper.ts uses it only then): a path through objects only
 * reaches the value at its end (a missing key, or a step on a string, number, boolean or null,
 * reaches nothing, and the key is left out); own properties only; a null-prototype object with the
 * keys in the expression's order. A list anywhere on a path — the input itself, along the way or at
 * the end — has JSONata's sequence semantics (mapping, flattening, singletons): the direct form
 * gives up on that input and the caller evaluates it with JSONata.
 */
export function directTransformOf(ast: unknown): DirectTransform | undefined {
  if (!isPlainNode(ast) || ast.type !== 'unary' || ast.value !== '{') return undefined;
  if (!Array.isArray(ast.lhs)) return undefined;
  const pairs: { key: string; path: string[] }[] = [];
  for (const pair of ast.lhs as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2) return undefined;
    const key = keyOf(pair[0]);
    const path = pathOf(pair[1]);
    if (key === undefined || path === undefined) return undefined;
    if (pairs.some((other) => other.key === key)) return undefined;
    pairs.push({ key, path });
  }
  return (input) => {
    if (Array.isArray(input)) return undefined;
    const output: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const { key, path } of pairs) {
      const value = valueAt(input, path);
      if (value === GIVE_UP) return undefined;
      if (value !== undefined) output[key] = value;
    }
    return output;
  };
}

const GIVE_UP = Symbol('give up');

/** The value at the end of `path` through objects; GIVE_UP on a list. */
function valueAt(input: unknown, path: readonly string[]): unknown {
  let current = input;
  for (const name of path) {
    if (Array.isArray(current)) return GIVE_UP;
    if (!isRecord(current) || !Object.hasOwn(current, name)) return undefined;
    current = current[name];
  }
  return Array.isArray(current) ? GIVE_UP : current;
}

function isPlainNode(node: unknown): node is Record<string, unknown> {
  return isRecord(node) && Object.keys(node).every((key) => PLAIN_NODE_KEYS.has(key));
}

function keyOf(node: unknown): string | undefined {
  if (!isPlainNode(node) || node.type !== 'string' || typeof node.value !== 'string') {
    return undefined;
  }
  return RESERVED_KEYS.has(node.value) ? undefined : node.value;
}

function pathOf(node: unknown): string[] | undefined {
  if (!isPlainNode(node) || node.type !== 'path' || !Array.isArray(node.steps)) return undefined;
  const names: string[] = [];
  for (const step of node.steps as unknown[]) {
    if (!isPlainNode(step) || step.type !== 'name' || typeof step.value !== 'string') {
      return undefined;
    }
    names.push(step.value);
  }
  return names.length === 0 ? undefined : names;
}
