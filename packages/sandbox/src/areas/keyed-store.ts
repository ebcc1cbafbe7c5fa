import type { SandboxError } from '../sandbox-error';

/** An area's in-memory collection keyed by id or code; unknown keys throw the operation's error. */
export interface KeyedStore<T> {
  list(): T[];
  find(key: string): T | undefined;
  get(key: string, notFound?: (key: string) => SandboxError): T;
  has(key: string): boolean;
  put(key: string, item: T): T;
  remove(key: string, notFound?: (key: string) => SandboxError): T;
}

export function createKeyedStore<T>(
  notFound: (key: string) => SandboxError,
  seed: Iterable<readonly [string, T]> = [],
): KeyedStore<T> {
  const items = new Map<string, T>(seed);
  const get = (key: string, missing = notFound): T => {
    const item = items.get(key);
    if (item === undefined) throw missing(key);
    return item;
  };
  return {
    list: () => [...items.values()],
    find: (key) => items.get(key),
    get,
    has: (key) => items.has(key),
    put: (key, item) => {
      items.set(key, item);
      return item;
    },
    remove: (key, missing = notFound) => {
      const item = get(key, missing);
      items.delete(key);
      return item;
    },
  };
}

/** Numeric string ids in the platform's style, counting up from a seed-dependent start. */
export function createIdSequence(random: () => number, suffix: string): () => string {
  let next = 1_000_000 + Math.floor(random() * 8_000_000);
  return () => {
    next += 1 + Math.floor(random() * 40);
    return `${next}0000${suffix}`;
  };
}

export function pick<T>(random: () => number, values: readonly T[]): T {
  const value = values[Math.floor(random() * values.length)];
  if (value === undefined) throw new Error('pick() from an empty list');
  return value;
}

export function randomInt(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}
