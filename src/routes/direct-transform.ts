import { isRecord } from '../is-record';

/**
 * An evaluation of the simplest transforms without JSONata's evaluator: what the expression makes
 * of `input`, or undefined when this input needs the evaluator (JSONata's sequence rules apply).
 */
type DirectTransform = (input: unknown) => Record<string, unknown> | undefined;

/** The keys a node of the parsed expression may have for the direct form; any other: not direct. */
const PLAIN_NODE_KEYS: ReadonlySet<string> = new Set([
  'type',
  'value',
  'position',
  'lhs',
  'rhs',
  'steps',
]);

/** Keys JSONata refuses in an object constructor (D1013): left to it, so it says so. */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['_jsonata_lambda', '_jsonata_function']);

/**
 * The direct form of an expression that is an object of plain paths, such as
 * `{ "id": id, "loan": item_loan.loan_id, "text": "Loan " & item_loan.loan_id }` — string keys,
 * each named once; values that are paths of names (no predicate, function or variable), string
 * literals, or texts joined by `&` of those; undefined for any other expression.
 *
 * JSONata evaluates every step asynchronously (a promise, a frame and a sequence per step): for
 * such an expression that costs 15-30 µs per event, the lookups themselves well under one. The
 * result is what JSONata makes (src/routes/send-shaper.ts uses it only then): a path through
 * objects reaches the value at its end (a missing key, or a step on a string, number, boolean or
 * null, reaches nothing, and the key is left out); own properties only; `&` joins strings, what
 * reaches nothing counting as ""; a null-prototype object with the keys in the expression's order.
 * A list anywhere on a path — the input itself, along the way or at the end — has JSONata's
 * sequence semantics (mapping, flattening, singletons), and `&` turns anything but a string into
 * text by `$string`'s rules; JSONata does not look inside an object marked as one of its functions
 * (`_jsonata_lambda`): on such an input the direct form gives up, and the caller evaluates it with
 * JSONata.
 */
export function directTransformOf(ast: unknown): DirectTransform | undefined {
  if (!isPlainNode(ast) || ast.type !== 'unary' || ast.value !== '{') return undefined;
  if (!Array.isArray(ast.lhs)) return undefined;
  const pairs: { key: string; valueOf: ValueOf }[] = [];
  for (const pair of ast.lhs as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2) return undefined;
    const key = keyOf(pair[0]);
    const valueOf = valueOfNode(pair[1]);
    if (key === undefined || valueOf === undefined) return undefined;
    if (pairs.some((other) => other.key === key)) return undefined;
    pairs.push({ key, valueOf });
  }
  return (input) => {
    if (Array.isArray(input)) return undefined;
    const output: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const { key, valueOf } of pairs) {
      const value = valueOf(input);
      if (value === GIVE_UP) return undefined;
      if (value !== undefined) output[key] = value;
    }
    return output;
  };
}

const GIVE_UP = Symbol('give up');

/** One value of the object: what it makes of the input, undefined (nothing), or GIVE_UP. */
type ValueOf = (input: unknown) => unknown;

function valueOfNode(node: unknown): ValueOf | undefined {
  if (!isPlainNode(node)) return undefined;
  if (node.type === 'string' && typeof node.value === 'string') {
    const text = node.value;
    return () => text;
  }
  if (node.type === 'binary' && node.value === '&') {
    const left = valueOfNode(node.lhs);
    const right = valueOfNode(node.rhs);
    if (left === undefined || right === undefined) return undefined;
    return (input) => joined(left(input), right(input));
  }
  const path = pathOf(node);
  return path === undefined ? undefined : (input) => valueAt(input, path);
}

/** JSONata's `&` where both sides are strings or nothing; GIVE_UP for anything else. */
function joined(left: unknown, right: unknown): unknown {
  const isText = (value: unknown): boolean => value === undefined || typeof value === 'string';
  if (!isText(left) || !isText(right)) return GIVE_UP;
  return `${(left as string | undefined) ?? ''}${(right as string | undefined) ?? ''}`;
}

/**
 * The value at the end of `path` through objects; GIVE_UP on a list, and on an object marked as a
 * JSONata function (JSONata does not look inside one, and refuses one in the output).
 */
function valueAt(input: unknown, path: readonly string[]): unknown {
  let current = input;
  for (const name of path) {
    if (Array.isArray(current) || isMarkedFunction(current)) return GIVE_UP;
    if (!isRecord(current) || !Object.hasOwn(current, name)) return undefined;
    current = current[name];
  }
  return Array.isArray(current) || isMarkedFunction(current) ? GIVE_UP : current;
}

function isMarkedFunction(value: unknown): boolean {
  return isRecord(value) && (value._jsonata_lambda === true || value._jsonata_function === true);
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
