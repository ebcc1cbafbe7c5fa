/** An object of a JSON value (not a list, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a walk may read `parent[key]` (a field left out is neither visited nor searched). */
export type EnterField = (parent: Record<string, unknown>, key: string) => boolean;

const everyField: EnterField = () => true;

/**
 * Calls `visit(parent, key)` for every object holding the last name of `path` (a kind's path,
 * split at its dots), walking through lists. `**` matches any depth, this one included, so
 * `**.user` is every `user` key inside `value`. Fields `enter` refuses are skipped whole.
 */
export function forEachAtPath(
  value: unknown,
  path: readonly string[],
  visit: (parent: Record<string, unknown>, key: string) => unknown,
  enter: EnterField = everyField,
): void {
  if (Array.isArray(value)) {
    for (const element of value) forEachAtPath(element, path, visit, enter);
    return;
  }
  const [head, ...rest] = path;
  if (!isJsonObject(value) || head === undefined) return;
  if (head === '**') {
    forEachAtPath(value, rest, visit, enter);
    for (const [key, child] of Object.entries(value)) {
      if (enter(value, key)) forEachAtPath(child, path, visit, enter);
    }
    return;
  }
  if (!Object.hasOwn(value, head) || !enter(value, head)) return;
  if (rest.length === 0) visit(value, head);
  else forEachAtPath(value[head], rest, visit, enter);
}

/**
 * Calls `visit(parent, key)` for every object inside `value` holding one of `keys`, at any
 * depth; what such a key holds is not searched further (it is the field found). One walk for
 * all the keys, where `**.key` paths would walk once each.
 */
export function forEachKeyAtAnyDepth(
  value: unknown,
  keys: ReadonlySet<string>,
  visit: (parent: Record<string, unknown>, key: string) => unknown,
): void {
  if (Array.isArray(value)) {
    for (const element of value) forEachKeyAtAnyDepth(element, keys, visit);
  } else if (isJsonObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (keys.has(key)) visit(value, key);
      else forEachKeyAtAnyDepth(child, keys, visit);
    }
  }
}
