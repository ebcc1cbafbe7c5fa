/** Keys that would reach an object's prototype if copied by assignment anywhere downstream. */
export const UNSAFE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
