import http from 'node:http';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { loanEventJson } from '../../helpers/loan-event';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { exitOf, startWeb } from '../../helpers/start-web';

const SECRET = 'keep-alive-test-secret';
const CONNECTIONS = 50;
const RATE_PER_SECOND = 1000;
const DURATION_MS = 4000;

interface Tally {
  sent: number;
  statuses: Record<string, number>;
  /** Requests that ended without an answer: the connection closed, reset or timed out. */
  unanswered: Record<string, number>;
}

/**
 * Paced signed LOAN events over at most `CONNECTIONS` keep-alive connections (one request at a
 * time on each, as the platform's sender does), every request accounted for once it ends.
 */
async function pacedLoad(port: number, run: string): Promise<Tally> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const tally: Tally = { sent: 0, statuses: {}, unanswered: {} };
  const ended: Promise<void>[] = [];
  const post = (n: number): Promise<void> =>
    new Promise((resolve) => {
      const body = loanEventJson(`${run}${String(n)}`);
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/webhooks',
          method: 'POST',
          agent,
          timeout: 10_000,
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
            'X-Svc-Signature': signWebhookBody(SECRET, body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            const status = String(res.statusCode);
            tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
            resolve();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
      req.on('error', (error: NodeJS.ErrnoException) => {
        const why = error.code ?? error.message;
        tally.unanswered[why] = (tally.unanswered[why] ?? 0) + 1;
        resolve();
      });
      req.end(body);
    });
  const started = Date.now();
  await new Promise<void>((resolve) => {
    const pace = setInterval(() => {
      const elapsed = Math.min(Date.now() - started, DURATION_MS);
      while (tally.sent < (RATE_PER_SECOND * elapsed) / 1000) ended.push(post(tally.sent++));
      if (elapsed >= DURATION_MS) {
        clearInterval(pace);
        resolve();
      }
    }, 5);
  });
  await Promise.all(ended);
  agent.destroy();
  return tally;
}

describe('the listener under a paced load from its start', () => {
  it('answers every request on 50 keep-alive connections at 1,000/s: none unanswered, all 200', async () => {
    const queueName = uniqueQueueName('keep-alive');
    const web = await startWeb({
      PORT: '0',
      WEBHOOK_SECRET: SECRET,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: queueName,
      LOG_LEVEL: 'info',
    });
    try {
      const tally = await pacedLoad(web.port, `${Date.now().toString(36)}-`);
      expect(tally.unanswered).toEqual({});
      expect(tally.statuses).toEqual({ '200': tally.sent });
      expect(tally.sent).toBe((RATE_PER_SECOND * DURATION_MS) / 1000);
    } finally {
      const exited = exitOf(web.child);
      web.child.kill('SIGTERM');
      await exited;
      await obliterateQueue(queueName);
    }
  }, 60_000);
});
