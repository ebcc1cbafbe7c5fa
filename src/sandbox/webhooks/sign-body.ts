import { createHmac } from 'node:crypto';

/** spec §6.2 rule 1: Base64(HMAC-SHA256(secret, the exact body bytes)). */
export function signBody(secret: string, body: Uint8Array): string {
  return createHmac('sha256', secret).update(body).digest('base64');
}
