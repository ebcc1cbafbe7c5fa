import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { signWebhookBody } from '../src/http/webhook-signature';

const SECRET = 'bench-secret';
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const BODIES = Number(process.env.BENCH_BODIES ?? 60000);

interface Figures {
  name: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** A 1 KB JSON job_end and a 2 KB XML one; every request gets its own event id. */
function bodies(): { json: (id: string) => string; xml: (id: string) => string } {
  const fixtures = path.join(__dirname, '../test/fixtures/events');
  const json = readFileSync(path.join(fixtures, 'job-end.json'), 'utf8').replace(
    /\s+(?=(?:[^"]*"[^"]*")*[^"]*$)/g,
    '',
  );
  const xml = readFileSync(path.join(fixtures, 'job-end.xml'), 'utf8');
  const padXml = xml.replace(
    '</webhook>',
    `<note>${'x'.repeat(Math.max(0, 2048 - xml.length - 20))}</note></webhook>`,
  );
  const padJson =
    json.slice(0, -1) + `,"note":"${'x'.repeat(Math.max(0, 1024 - json.length - 12))}"}`;
  return {
    json: (id) => padJson.replace('"3219421620000561"', JSON.stringify(id)),
    xml: (id) => padXml.replace('<id>3219421620000561</id>', `<id>${id}</id>`),
  };
}

async function startServer(
  kind: 'listener' | 'listener-no-redis' | 'bare',
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(__dirname, 'servers/listener-server.ts'),
      kind,
      `bench-${randomUUID().slice(0, 8)}`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_SECRET: SECRET } },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /port=(\d+)/.exec(out);
      if (match?.[1]) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${String(code)}`)));
  });
  return { url: `http://127.0.0.1:${port}/webhooks`, child };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function load(
  name: string,
  url: string,
  contentType: string,
  makeBody: (id: string) => string,
  extra: Partial<autocannon.Options> = {},
): Promise<Figures> {
  // Bodies are made and signed before the clock starts, so the load generator measures the server.
  const run = randomUUID().slice(0, 8);
  const prepared = Array.from({ length: BODIES }, (_, i) => {
    const body = makeBody(`${run}-${i}`);
    return { body, signature: signWebhookBody(SECRET, body) };
  });
  let n = 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION_S,
    method: 'POST',
    requests: [
      {
        setupRequest: (request) => {
          // Past BODIES requests the ids repeat: those deliveries take the duplicate path.
          const next = prepared[n++ % prepared.length];
          return {
            ...request,
            method: 'POST',
            body: next?.body ?? '',
            headers: { 'content-type': contentType, 'x-svc-signature': next?.signature ?? '' },
          };
        },
      },
    ],
    ...extra,
  });
  return {
    name,
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

function print(figures: Figures): void {
  process.stdout.write(
    `${figures.name.padEnd(42)} ${figures.reqPerSec.toFixed(0).padStart(7)} req/s   p50 ${String(figures.p50).padStart(4)} ms   p99 ${String(figures.p99).padStart(4)} ms   non-2xx ${figures.non2xx}   errors ${figures.errors}\n`,
  );
}

/** Ingress throughput and latency of the listener against a bare Express 5 floor, in one run. */
export async function run(): Promise<void> {
  const make = bodies();
  process.stdout.write(
    `${CONNECTIONS} connections, ${DURATION_S} s each; server in its own process, real Redis\n`,
  );

  const bare = await startServer('bare');
  const floor = await load(
    'bare Express 5 (raw body, 200), 1 KB JSON',
    bare.url,
    'application/json',
    make.json,
  );
  await stop(bare.child);
  print(floor);

  const noRedis = await startServer('listener-no-redis');
  const withoutQueue = await load(
    'listener without the enqueue (diagnostic)',
    noRedis.url,
    'application/json',
    make.json,
  );
  await stop(noRedis.child);
  print(withoutQueue);

  const listener = await startServer('listener');
  try {
    const json = await load(
      'listener, signed 1 KB JSON',
      listener.url,
      'application/json',
      make.json,
    );
    print(json);
    const xml = await load('listener, signed 2 KB XML', listener.url, 'application/xml', make.xml);
    print(xml);
    const paced = await load(
      'listener, 1 KB JSON at 1,000 req/s',
      listener.url,
      'application/json',
      make.json,
      {
        overallRate: 1000,
        connections: 20,
      },
    );
    print(paced);
    process.stdout.write(
      `\nJSON ingress / Express floor: ${(json.reqPerSec / floor.reqPerSec).toFixed(2)} (target >= 0.90)\n` +
        `XML ingress / Express floor:  ${(xml.reqPerSec / floor.reqPerSec).toFixed(2)}\n` +
        `JSON ingress without the enqueue / Express floor: ${(withoutQueue.reqPerSec / floor.reqPerSec).toFixed(2)}\n` +
        `p99 at 1,000 req/s: ${paced.p99} ms (target < 25 ms)\n`,
    );
  } finally {
    await stop(listener.child);
  }
}
