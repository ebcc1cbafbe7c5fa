import http from 'node:http';
import { signWebhookBody } from '../../src/signature/sign-webhook-body';

export interface PostOptions {
  readonly url: string;
  readonly secret: string;
  readonly events: number;
  readonly connections: number;
  /** Events per second (paced); undefined: each as soon as a connection is free. */
  readonly rate: number | undefined;
  /** Event id → when its POST was sent. */
  readonly posted: Map<string, number>;
}

/** The body of one signed LOAN event. */
export function loanBody(id: string): string {
  return JSON.stringify({
    id,
    action: 'LOAN',
    institution: { value: '01BENCH_INST', desc: 'Bench' },
    time: new Date().toISOString(),
    event: { value: 'LOAN_CREATED', desc: 'Loan created' },
    item_loan: {
      loan_id: `2340${id}`,
      user_id: 'bench-user',
      title: 'A history of rivers',
      loan_status: 'ACTIVE',
    },
  });
}

/**
 * POSTs every event, `connections` at a time, on keep-alive connections; with a rate, event n is
 * not sent before n / rate s from the start (a sustained rate), otherwise each as soon as a
 * connection is free. A 503 (the queue did not answer in time: a saturated machine), a reset
 * connection or no answer within 10 s is posted again after 100 ms, as a sender retries; resolves with how many were.
 */
export async function postEvents(options: PostOptions): Promise<number> {
  const { url, secret, events, rate, posted } = options;
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  let next = 0;
  const base = Date.now();
  const start = performance.now();
  let refused = 0;
  const once = (body: string): Promise<number> => {
    return new Promise((resolve, reject) => {
      const req = http.request(url, {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'x-svc-signature': signWebhookBody(secret, body),
        },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      // A keep-alive connection the server closed as it was reused, or no answer within 10 s
      // (seen on a saturated machine): post again.
      req.setTimeout(10_000, () =>
        req.destroy(Object.assign(new Error('no answer'), { code: 'ECONNRESET' })),
      );
      req.on('error', (error: NodeJS.ErrnoException) =>
        error.code === 'ECONNRESET' ? resolve(0) : reject(error),
      );
      req.end(body);
    });
  };
  const one = async (id: string): Promise<void> => {
    const body = loanBody(id);
    posted.set(id, performance.now());
    for (;;) {
      const status = await once(body);
      if (status === 200) return;
      if (status !== 503 && status !== 0) throw new Error(`HTTP ${String(status)}`);
      refused += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (next < events) {
        next += 1;
        const n = next;
        if (rate !== undefined) {
          const wait = start + (n * 1000) / rate - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        }
        // Digits, as the platform's ids; concatenated (their sum would pass 2^53).
        await one(`${String(base)}${String(n).padStart(6, '0')}`);
      }
    }),
  );
  agent.destroy();
  return refused;
}
