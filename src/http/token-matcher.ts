import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * A constant-time check of a presented token against the configured one. Both are hashed first:
 * digests have one length, so the comparison takes the same time whatever was sent.
 */
export function createTokenMatcher(token: string): (given: string | undefined) => boolean {
  const expected = tokenDigest(token);
  return (given) => given !== undefined && secretsMatch(tokenDigest(given), expected);
}

/**
 * The one comparison of a presented secret (a token's digest, a CSRF token) with the expected one,
 * in constant time. Different lengths are no match, answered at once: timingSafeEqual would throw,
 * and the length of a digest or an HMAC says nothing of its value.
 */
export function secretsMatch(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A token's SHA-256: what is compared, and (as hex) what a tokens file keeps instead of it. */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** A token's SHA-256 in lower-case hex, as CONSOLE_TOKENS_FILE holds it. */
export function sha256Hex(text: string): string {
  return tokenDigest(text).toString('hex');
}
