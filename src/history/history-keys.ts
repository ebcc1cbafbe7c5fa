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
/** IVs drawn from the CSPRNG at once: one call per 1,024 bodies instead of one per body. */
const IVS_AT_ONCE = 1024;

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
  // Each IV is its own 12 bytes of a fresh random block, never handed out twice: a new block
  // replaces the used one (the IVs already given keep theirs).
  let ivs = Buffer.alloc(0);
  let next = 0;
  const freshIv = (): Buffer => {
    if (next + IV_BYTES > ivs.length) {
      ivs = randomBytes(IV_BYTES * IVS_AT_ONCE);
      next = 0;
    }
    next += IV_BYTES;
    return ivs.subarray(next - IV_BYTES, next);
  };
  return {
    hashPerson: (identifier) =>
      createHmac('sha256', hashKey).update(identifier.trim().toLowerCase()).digest('hex'),
    seal: (plain, aad) => {
      const iv = freshIv();
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
