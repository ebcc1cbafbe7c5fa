import { signWebhookBody } from '../signature/sign-webhook-body';

export interface SendTestEventOptions {
  url: string;
  secret: string;
  /** Sent exactly as given: the signature is over these bytes (spec §6.2 rule 1). */
  body: Buffer;
  contentType: string;
  timeoutMs: number;
}

export interface TestEventAnswer {
  status: number;
  statusText: string;
  text: string;
  durationMs: number;
}

/** Signs a body as the platform does and POSTs it; the answer whatever its status. */
export async function sendTestEvent(options: SendTestEventOptions): Promise<TestEventAnswer> {
  const started = performance.now();
  const response = await fetch(options.url, {
    method: 'POST',
    headers: {
      'Content-Type': options.contentType,
      'X-Svc-Signature': signWebhookBody(options.secret, options.body),
      'User-Agent': 'svcws-cli send-test-event',
    },
    body: options.body,
    signal: AbortSignal.timeout(options.timeoutMs),
    redirect: 'manual',
  });
  const text = await response.text();
  return {
    status: response.status,
    statusText: response.statusText,
    text,
    durationMs: Math.round(performance.now() - started),
  };
}
