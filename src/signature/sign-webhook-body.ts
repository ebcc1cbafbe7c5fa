import { createHmac } from 'node:crypto';

/**
 * Base64(HMAC-SHA256(secret, body)): the `X-Svc-Signature` header value (spec §6.2 rule 1). The
 * listener checks it (src/http/webhook-signature.ts); `send-test-event`, the sandbox and the tests
 * sign with it.
 */
export function signWebhookBody(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('base64');
}
