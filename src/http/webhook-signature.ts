import { createHmac, timingSafeEqual } from 'node:crypto';

/** Base64(HMAC-SHA256(secret, body)): the `X-Svc-Signature` header value (spec §6.2 rule 1). */
export function signWebhookBody(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('base64');
}

/** Exactly the Base64 of 32 bytes: 43 characters and one `=`. */
const STRICT_BASE64_SHA256 = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

/**
 * Builds the check of one delivery against the configured secrets (current first, then the one
 * being rotated out). The header must be strict Base64 that decodes to 32 bytes and re-encodes to
 * itself; the comparison is constant-time and runs over the bytes as received (spec §6.2 rule 3).
 */
export function createSignatureVerifier(
  secrets: readonly string[],
): (body: Buffer, header: string | undefined) => boolean {
  const keys = secrets.filter((secret) => secret !== '');
  if (keys.length === 0) throw new Error('at least one webhook secret is required');
  return (body, header) => {
    if (header === undefined || !STRICT_BASE64_SHA256.test(header)) return false;
    const given = Buffer.from(header, 'base64');
    if (given.length !== 32 || given.toString('base64') !== header) return false;
    let match = false;
    for (const secret of keys) {
      const expected = createHmac('sha256', secret).update(body).digest();
      // Every secret is compared, so timing does not tell which one matched.
      if (timingSafeEqual(expected, given)) match = true;
    }
    return match;
  };
}
