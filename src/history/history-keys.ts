import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/** What HISTORY_KEY is used for, each through its own derived key (HKDF-SHA256). */
export interface HistoryKeys {
  /** HMAC-SHA256 (hex) of a person's identifier, trimmed and lower-cased first. */
  hashPerson: (identifier: string) => string;
  /** AES-256-GCM of a body, bound to the event it belongs to (`aad`). */
  seal: (plain: Buffer, aad: string) => Buffer;
  /** The body back; throws when the key, the event or the bytes do not match. */
  unseal: (sealed: Buffer, aad: string) => Buffer;
}

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Two keys from one secret: one to hash identifiers (search and forget by a person's id, the
 * table alone names no one), one to encrypt patron bodies at rest. HKDF keeps them independent,
 * so knowing one tells nothing of the other. Sealed form: version byte, IV, tag, ciphertext.
 */
export function deriveHistoryKeys(historyKey: string): HistoryKeys {
  const derive = (info: string): Buffer =>
    Buffer.from(hkdfSync('sha256', historyKey, 'svcws-history', info, 32));
  const hashKey = derive('person-identifier-hmac v1');
  const bodyKey = derive('body-aes-256-gcm v1');
  return {
    hashPerson: (identifier) =>
      createHmac('sha256', hashKey).update(identifier.trim().toLowerCase()).digest('hex'),
    seal: (plain, aad) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', bodyKey, iv);
      cipher.setAAD(Buffer.from(aad));
      const data = Buffer.concat([cipher.update(plain), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), data]);
    },
    unseal: (sealed, aad) => {
      if (sealed[0] !== VERSION) throw new Error('sealed body of an unknown version');
      const iv = sealed.subarray(1, 1 + IV_BYTES);
      const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', bodyKey, iv);
      decipher.setAAD(Buffer.from(aad));
      decipher.setAuthTag(tag);
      return Buffer.concat([
        decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]);
    },
  };
}
