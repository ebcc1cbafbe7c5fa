import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { Queue } from 'bullmq';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { exitOf, startWeb } from '../../helpers/start-web';

const root = path.join(__dirname, '../../..');
const SECRET = 'process-test-secret';

/** A POST whose body is sent in two parts, so it is still in flight when SIGTERM arrives. */
function slowPost(port: number, body: string, onFirstPart: () => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/webhooks',
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'X-Svc-Signature': signWebhookBody(SECRET, body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    const half = Math.floor(body.length / 2);
    // The first half leaves here before the signal, but a loaded server may not have read the
    // request's headers yet, and a connection with no request is idle (closed at shutdown): give
    // it time to start the request first.
    req.write(body.slice(0, half), () => {
      setTimeout(() => {
        onFirstPart();
        setTimeout(() => req.end(body.slice(half)), 300);
      }, 250);
    });
  });
}

describe('the web process', () => {
  it('fails at start-up naming a missing secret, without printing any value', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/bin/web.ts')], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        REDIS_URL: 'redis://user:hunter2@127.0.0.1:1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect(await exitOf(child)).toBe(1);
    expect(output).toContain('WEBHOOK_SECRET (required)');
    expect(output).not.toContain('hunter2');
  });

  it('finishes a request in flight on SIGTERM, queues its event, and exits 0', async () => {
    const queueName = uniqueQueueName('web-process');
    const web = await startWeb({
      PORT: '0',
      WEBHOOK_SECRET: SECRET,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: queueName,
      LOG_LEVEL: 'info',
    });
    const queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    try {
      const body = readFileSync(path.join(root, 'test/fixtures/events/job-end.json'), 'utf8');
      const exited = exitOf(web.child);
      const status = await slowPost(web.port, body, () => web.child.kill('SIGTERM'));
      expect(status).toBe(200);
      expect(await exited).toBe(0);
      expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 1 });
      expect(web.output()).toContain('"msg":"stopped"');
    } finally {
      await queue.close();
      await obliterateQueue(queueName);
    }
  });
});
