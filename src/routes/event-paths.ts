import { isRecord } from '../is-record';

/** Dotted paths as a tree of names: `a.b`, `a.c` → { a: { b: true, c: true } }. */
interface PathTree {
  [name: string]: PathTree | true;
}

function treeOf(paths: readonly string[]): PathTree {
  const root: PathTree = {};
  for (const path of paths) {
    const names = path.split('.');
    let node = root;
    names.forEach((name, index) => {
      if (index === names.length - 1) {
        node[name] = true;
        return;
      }
      const next = node[name];
      // A shorter path already keeps (or drops) the whole subtree.
      if (next === true) return;
      node = next ?? (node[name] = {});
    });
  }
  return root;
}

/**
 * A copy holding only what the paths reach; lists along a path are walked, so `notes.type`
 * keeps each note's type. Nothing reached → undefined.
 */
export function pickPaths(value: unknown, paths: readonly string[]): unknown {
  return pick(value, treeOf(paths));
}

function pick(value: unknown, tree: PathTree): unknown {
  if (Array.isArray(value)) {
    const kept = value.map((element) => pick(element, tree)).filter((v) => v !== undefined);
    return kept.length === 0 ? undefined : kept;
  }
  if (!isRecord(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(tree)) {
    if (!Object.hasOwn(value, name)) continue;
    const kept = sub === true ? value[name] : pick(value[name], sub);
    if (kept !== undefined) out[name] = kept;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** A copy without what the paths reach (lists along a path walked); the input is not changed. */
export function dropPaths(value: unknown, paths: readonly string[]): unknown {
  return drop(value, treeOf(paths));
}

function drop(value: unknown, tree: PathTree): unknown {
  if (Array.isArray(value)) return value.map((element) => drop(element, tree));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) {
    const sub = tree[name];
    if (sub === true) continue;
    out[name] = sub === undefined ? inner : drop(inner, sub);
  }
  return out;
}
