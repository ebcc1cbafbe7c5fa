import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * A constant-time check of a presented token against the configured one. Both are hashed first:
 * digests have one length, so the comparison takes the same time whatever was sent.
 */
export function createTokenMatcher(token: string): (given: string | undefined) => boolean {
  const expected = digest(token);
  return (given) => given !== undefined && timingSafeEqual(digest(given), expected);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
