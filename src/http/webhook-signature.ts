import { createHmac, timingSafeEqual } from 'node:crypto';

/** Shorter shared secrets can be found offline from one signed body; config.ts refuses them too. */
const MIN_SECRET_LENGTH = 16;

/** Exactly the Base64 of 32 bytes: 43 characters and one `=`. */
const STRICT_BASE64_SHA256 = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

/** Which configured secret signed a delivery: what a rotation needs to know before it ends. */
export type SecretMatch = 'current' | 'previous';

export type SignatureVerifier = (
  body: Buffer,
  header: string | undefined,
) => SecretMatch | undefined;

/**
 * True when the header can be a signature at all: strict Base64 that decodes to 32 bytes and
 * re-encodes to itself. Checked before the body is read, so a request without one costs nothing.
 */
export function isWellFormedSignature(header: string | undefined): header is string {
  if (header === undefined || !STRICT_BASE64_SHA256.test(header)) return false;
  return Buffer.from(header, 'base64').toString('base64') === header;
}

/**
 * Builds the check of one delivery against the configured secrets (the current one and, during a
 * rotation, the previous one). The comparison is constant-time and runs over the bytes as received
 * (spec §6.2 rule 3); it answers which secret matched, or undefined.
 */
export function createSignatureVerifier(secrets: {
  current: string;
  previous?: string | undefined;
}): SignatureVerifier {
  const keys: [SecretMatch, string][] = [['current', secrets.current]];
  if (secrets.previous !== undefined && secrets.previous !== '') {
    keys.push(['previous', secrets.previous]);
  }
  for (const [name, secret] of keys) {
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new Error(
        `the ${name} webhook secret must be at least ${String(MIN_SECRET_LENGTH)} characters`,
      );
    }
  }
  return (body, header) => {
    if (!isWellFormedSignature(header)) return undefined;
    const given = Buffer.from(header, 'base64');
    let match: SecretMatch | undefined;
    for (const [name, secret] of keys) {
      const expected = createHmac('sha256', secret).update(body).digest();
      // Every secret is compared, so timing does not tell which one matched.
      if (timingSafeEqual(expected, given) && match === undefined) match = name;
    }
    return match;
  };
}
