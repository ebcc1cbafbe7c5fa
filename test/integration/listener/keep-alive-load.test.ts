import { spawn } from 'node:child_process';
import path from 'node:path';
import { TALLY_PRELOAD, tallyOf } from '../../../bench/ingress/http-server-tally';
import type { HttpServerTally } from '../../../bench/ingress/http-server-tally';
import { pacedKeepAliveLoad } from '../../../bench/ingress/keep-alive-client';
import type { ClientTally, PacedLoad } from '../../../bench/ingress/keep-alive-client';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { loanEventJson } from '../../helpers/loan-event';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { closeOf, startWeb } from '../../helpers/start-web';
import type { Started } from '../../helpers/start-web';

const SECRET = 'keep-alive-test-secret';

/** The platform's side of issue #27's measurement: 50 keep-alive connections at 1,000/s. */
const PLATFORM_LOAD: PacedLoad = { connections: 50, ratePerSecond: 1000, durationMs: 4000 };

/** Signed LOAN events with ids unique to the run, paced on keep-alive connections. */
function pacedLoad(port: number, run: string, load: PacedLoad): Promise<ClientTally> {
  return pacedKeepAliveLoad({
    port,
    path: '/webhooks',
    load,
    post: (n) => {
      const body = loanEventJson(`${run}${String(n)}`);
      return { body, signature: signWebhookBody(SECRET, body) };
    },
  });
}

/** SIGTERM, then the tally the process printed as it exited. */
async function stopAndTally(server: Started): Promise<HttpServerTally> {
  const closed = closeOf(server.child);
  server.child.kill('SIGTERM');
  await closed;
  return tallyOf(server.output());
}

/** test/helpers/request-dropping-server.ts in its own process, with the tally loaded. */
async function startDroppingServer(): Promise<Started> {
  const script = path.join(__dirname, '../../helpers/request-dropping-server.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', ...TALLY_PRELOAD, script], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /port=(\d+)/.exec(output);
      if (match?.[1]) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`exited with ${String(code)}: ${output}`)));
  });
  return { child, port, output: () => output };
}

describe('the listener under a paced load from its start', () => {
  it('answers every request on 50 keep-alive connections at 1,000/s and closes none of them', async () => {
    const queueName = uniqueQueueName('keep-alive');
    const web = await startWeb(
      {
        PORT: '0',
        WEBHOOK_SECRET: SECRET,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_NAME: queueName,
        LOG_LEVEL: 'info',
      },
      TALLY_PRELOAD,
    );
    try {
      const client = await pacedLoad(web.port, `${Date.now().toString(36)}-`, PLATFORM_LOAD);
      const { sent } = client;
      expect(sent).toBe((PLATFORM_LOAD.ratePerSecond * PLATFORM_LOAD.durationMs) / 1000);
      expect(client.unanswered).toEqual({});
      expect(client.statuses).toEqual({ '200': sent });
      // The server's own count: it received exactly what was sent, answered all of it, and
      // closed no connection (none with a request in flight, no idle one either) until stopped.
      expect(await stopAndTally(web)).toEqual({
        requests: sent,
        answered: sent,
        statuses: { '200': sent },
        unanswered: 0,
        closedWithRequestInFlight: { byServer: 0, byPeer: 0 },
        idleClosedByServerBeforeStop: 0,
        keepAliveTimeouts: 0,
        clientErrors: {},
      });
    } finally {
      if (web.child.exitCode === null) web.child.kill('SIGKILL');
      await obliterateQueue(queueName);
    }
  });

  it('counts a request whose connection a server closes unanswered, on both sides', async () => {
    const server = await startDroppingServer();
    try {
      const load: PacedLoad = { connections: 5, ratePerSecond: 200, durationMs: 500 };
      const client = await pacedLoad(server.port, 'dropped-', load);
      const lost = Object.values(client.unanswered).reduce((sum, n) => sum + n, 0);
      const tally = await stopAndTally(server);
      expect(client.sent).toBe(100);
      expect(lost).toBe(50);
      expect(client.statuses).toEqual({ '200': 50 });
      expect(tally.requests).toBe(100);
      expect(tally.answered).toBe(50);
      expect(tally.unanswered).toBe(50);
      expect(tally.closedWithRequestInFlight).toEqual({ byServer: 50, byPeer: 0 });
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });
});
