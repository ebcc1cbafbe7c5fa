import { MASK } from '../personal-fields';
import type { EventKind } from './event-kind';
import { eventKinds } from './event-kinds';
import { isJsonObject } from './for-each-at-path';

/** The root keys every event carries, none of them a person's: kept whole. */
const ROOT_SAFE = ['id', 'action', 'time', 'institution', 'event', 'meta'];

/** A tree of safe paths: a node is kept whole, or only its named children are. */
interface SafeNode {
  whole: boolean;
  readonly children: Map<string, SafeNode>;
}

const node = (): SafeNode => ({ whole: false, children: new Map() });

function addPath(root: SafeNode, names: readonly string[]): void {
  let at = root;
  for (const name of names) {
    let child = at.children.get(name);
    if (child === undefined) {
      child = node();
      at.children.set(name, child);
    }
    at = child;
  }
  at.whole = true;
}

const trees = new WeakMap<readonly EventKind[], SafeNode>();

/** The root's tree for these kinds: the common keys, each kind's subject with its safe paths. */
function treeOf(kinds: readonly EventKind[]): SafeNode {
  let root = trees.get(kinds);
  if (root === undefined) {
    root = node();
    for (const key of ROOT_SAFE) addPath(root, [key]);
    for (const kind of kinds) {
      for (const path of kind.safe) addPath(root, [kind.subject, ...path.split('.')]);
      // A subject with no safe path still shows as masked fields rather than vanishing.
      if (!root.children.has(kind.subject)) root.children.set(kind.subject, node());
    }
    trees.set(kinds, root);
  }
  return root;
}

/** A copy of `value` keeping what `at` names; every other value (and its strings) masked. */
function keepSafe(value: unknown, at: SafeNode, hidden: Set<string>): unknown {
  if (at.whole || value === null) return value;
  if (Array.isArray(value)) return value.map((element) => keepSafe(element, at, hidden));
  if (!isJsonObject(value)) return masked(value, hidden);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const child = at.children.get(key);
    const kept =
      child === undefined ? masked(value[key], hidden) : keepSafe(value[key], child, hidden);
    // An own `__proto__` key (JSON.parse makes one) stays a key, as in the event.
    Object.defineProperty(copy, key, { value: kept, enumerable: true, writable: true });
  }
  return copy;
}

/** A value not known to be safe: its mask, its strings noted (for texts that may quote them). */
function masked(value: unknown, hidden: Set<string>): string {
  const collect = (inner: unknown): void => {
    if (typeof inner === 'string') {
      if (inner.trim() !== '') hidden.add(inner);
    } else if (Array.isArray(inner)) inner.forEach(collect);
    else if (isJsonObject(inner)) Object.values(inner).forEach(collect);
  };
  collect(value);
  return MASK;
}

/**
 * The event as a viewer sees it: the common root keys and, inside its kind's subject, the
 * fields its kind knows to be safe (EventKind.safe); every other field, and every key of a kind
 * this listener has no file for, shows as `[masked]`. What is shown is known safe, rather than
 * "all but what is known personal": a field the platform adds is masked until a kind names it.
 * `hidden` lists the strings masked, so a text that quotes them (a failure's reason) can be
 * masked the same way.
 */
export function onlySafeFields(
  event: unknown,
  kinds: readonly EventKind[] = eventKinds,
): { readonly event: unknown; readonly hidden: readonly string[] } {
  const hidden = new Set<string>();
  const kept = isJsonObject(event) ? keepSafe(event, treeOf(kinds), hidden) : masked(event, hidden);
  return { event: kept, hidden: [...hidden] };
}
