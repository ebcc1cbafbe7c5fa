import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { Queue } from 'bullmq';
import { signWebhookBody } from '../src/signature/sign-webhook-body';
import { startBenchServer } from './ingress/bench-server';
import type { BenchServer, BenchServerSpec } from './ingress/bench-server';
import { buildBaseline } from './ingress/build-baseline';
import { buildServers } from './ingress/build-servers';
import { benchCores } from './ingress/cores';
import type { HttpServerTally } from './ingress/http-server-tally';
import { pacedKeepAliveLoad } from './ingress/keep-alive-client';
import type { PacedLoad, SignedPost } from './ingress/keep-alive-client';
import { benchRedis } from './ingress/private-redis';

const SECRET = 'bench-secret-of-the-keep-alive';
const QUEUE = 'bench-keep-alive';
const STARTS = Math.max(1, Number(process.env.BENCH_STARTS ?? 3));
const LOAD: PacedLoad = {
  connections: 50,
  ratePerSecond: 1000,
  durationMs: 1000 * Number(process.env.BENCH_DURATION_S ?? 10),
};
const BASELINE = process.env.BENCH_BASELINE;

type ClientKind = 'autocannon' | 'keep-alive client';

/** What the load's client saw: sent, read (by status), and what ended without an answer. */
interface ClientCount {
  sent: number;
  read: Record<string, number>;
  lost: Record<string, number>;
}

/**
 * Issue #27, point 4: does a listener close keep-alive connections with a request in flight under
 * a paced load from its start? Each server is freshly started as the ingress bench starts it (tsc
 * build, pinned, private Redis) and loaded at once at 1,000 signed LOAN events/s over 50
 * keep-alive connections for BENCH_DURATION_S (10 s), BENCH_STARTS (3) times per client: autocannon
 * as bench/ingress/load-server.ts drives it (it ends a load by destroying its connections), and the
 * keep-alive test's client (waits for every answer). Each row sets the client's count beside the
 * server's own (http-server-tally-probe.ts, preloaded): requests received and answered, and
 * connections closed with a request in flight, by who closed first. Servers: ours, a bare
 * Express 5 (the floor) and, with BENCH_BASELINE=<ref>, ours at that ref.
 */
export async function run(): Promise<void> {
  buildServers();
  const cores = benchCores();
  const redis = await benchRedis(cores);
  const clear = redis.private ? redis.flush : () => obliterate(redis.url);
  write(
    `${cores.description}; Redis ${redis.private ? 'private' : redis.url}; ` +
      `${LOAD.ratePerSecond}/s over ${LOAD.connections} keep-alive connections for ` +
      `${LOAD.durationMs / 1000} s from each fresh start\n`,
  );
  try {
    for (const spec of specs(redis.url)) {
      for (let start = 1; start <= STARTS; start += 1) {
        for (const client of ['autocannon', 'keep-alive client'] as const) {
          const server = await startBenchServer({ ...spec, tally: true }, cores);
          const loadAtStart = loadavg()[0] ?? 0;
          try {
            const [count, tally] = await loadAndCount(server, client, `${spec.name}-${start}`);
            write(row(`${spec.name}, start ${start}, ${client}`, loadAtStart, count, tally));
          } finally {
            await server.stop();
            await clear();
          }
        }
      }
    }
  } finally {
    await redis.stop();
  }
}

function specs(redisUrl: string): BenchServerSpec[] {
  const ours: BenchServerSpec = {
    name: 'ours',
    script: 'src/bin/web.ts',
    env: { WEBHOOK_SECRET: SECRET, REDIS_URL: redisUrl, QUEUE_NAME: QUEUE, LOG_LEVEL: 'info' },
    readyPath: '/readyz',
  };
  const floor = { name: 'bare Express 5', script: 'bench/servers/floor-server.ts', env: {} };
  if (BASELINE === undefined) return [ours, floor];
  return [ours, { ...ours, name: `ours at ${BASELINE}`, script: buildBaseline(BASELINE) }, floor];
}

/** One load from the server's start; the server's count is read once its closes are seen. */
async function loadAndCount(
  server: BenchServer,
  client: ClientKind,
  run: string,
): Promise<[ClientCount, HttpServerTally]> {
  const before = await server.tally();
  const ids = `${Date.now().toString(36)}-${run}-`;
  const post = (n: number): SignedPost => {
    const body = loanEventJson(`${ids}${String(n)}`);
    return { body, signature: signWebhookBody(SECRET, body) };
  };
  const count =
    client === 'autocannon' ? await viaAutocannon(server.url, post) : await viaAgent(server, post);
  await new Promise((resolve) => setTimeout(resolve, 500));
  return [count, since(before, await server.tally())];
}

async function viaAutocannon(url: string, post: (n: number) => SignedPost): Promise<ClientCount> {
  let sent = 0;
  const result = await autocannon({
    url,
    connections: LOAD.connections,
    duration: LOAD.durationMs / 1000,
    overallRate: LOAD.ratePerSecond,
    requests: [
      {
        setupRequest: (request) => {
          const next = post(sent++);
          return {
            ...request,
            method: 'POST',
            body: next.body,
            headers: { 'content-type': 'application/json', 'x-svc-signature': next.signature },
          };
        },
      },
    ],
  });
  return {
    sent,
    read: { '2xx': result['2xx'], 'non-2xx': result.non2xx },
    lost: { errors: result.errors, timeouts: result.timeouts, resets: result.resets },
  };
}

async function viaAgent(
  server: BenchServer,
  post: (n: number) => SignedPost,
): Promise<ClientCount> {
  const url = new URL(server.url);
  const tally = await pacedKeepAliveLoad({
    port: Number(url.port),
    path: url.pathname,
    load: LOAD,
    post,
  });
  return { sent: tally.sent, read: tally.statuses, lost: tally.unanswered };
}

/** The counts of `after` less those of `before` (the readiness check's request and connection). */
function since(before: HttpServerTally, after: HttpServerTally): HttpServerTally {
  const less = (a: Record<string, number>, b: Record<string, number>): Record<string, number> =>
    Object.fromEntries(
      Object.entries(a)
        .map(([key, n]): [string, number] => [key, n - (b[key] ?? 0)])
        .filter(([, n]) => n > 0),
    );
  const { byServer, byPeer } = after.closedWithRequestInFlight;
  return {
    requests: after.requests - before.requests,
    answered: after.answered - before.answered,
    statuses: less(after.statuses, before.statuses),
    unanswered: after.unanswered - before.unanswered,
    closedWithRequestInFlight: {
      byServer: byServer - before.closedWithRequestInFlight.byServer,
      byPeer: byPeer - before.closedWithRequestInFlight.byPeer,
    },
    idleClosedByServerBeforeStop:
      after.idleClosedByServerBeforeStop - before.idleClosedByServerBeforeStop,
    keepAliveTimeouts: after.keepAliveTimeouts - before.keepAliveTimeouts,
    clientErrors: less(after.clientErrors, before.clientErrors),
  };
}

function row(name: string, load: number, count: ClientCount, tally: HttpServerTally): string {
  const { byServer, byPeer } = tally.closedWithRequestInFlight;
  return (
    `${name} (load ${load.toFixed(1)})\n` +
    `  client: sent ${count.sent}, read ${JSON.stringify(count.read)}, ` +
    `unanswered ${JSON.stringify(count.lost)}\n` +
    `  server: received ${tally.requests}, answered ${tally.answered} ${JSON.stringify(tally.statuses)}, ` +
    `closed with a request in flight by the client ${byPeer}, by the server ${byServer}; ` +
    `idle closed by the server ${tally.idleClosedByServerBeforeStop} ` +
    `(keep-alive timeouts ${tally.keepAliveTimeouts}); clientErrors ${JSON.stringify(tally.clientErrors)}\n`
  );
}

/** A LOAN event as the platform sends it (as test/helpers/loan-event.ts writes one). */
function loanEventJson(id: string): string {
  return JSON.stringify({
    id,
    action: 'LOAN',
    event: { value: 'LOAN_CREATED' },
    time: '2024-11-06T10:15:30Z',
    item_loan: { loan_id: `L${id}` },
  });
}

async function obliterate(redisUrl: string): Promise<void> {
  const queue = new Queue(QUEUE, { connection: { url: redisUrl } });
  await queue.obliterate({ force: true });
  await queue.close();
}

function write(text: string): void {
  process.stdout.write(text);
}
