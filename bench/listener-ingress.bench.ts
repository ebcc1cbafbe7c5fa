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
  /** Server CPU time per request, µs. */
  cpuUs: number;
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

interface Server {
  url: string;
  child: ChildProcess;
  /** Server CPU time per request (µs) for the requests since the last call. */
  cpuPerRequest: () => Promise<number>;
}

async function startServer(kind: 'listener' | 'listener-no-redis' | 'bare'): Promise<Server> {
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
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /port=(\d+)/.exec(out);
      if (match?.[1]) {
        clearInterval(timer);
        resolve(Number(match[1]));
      }
    }, 20);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`${kind} server exited with ${String(code)}`));
    });
  });
  const cpuPerRequest = async (): Promise<number> => {
    const seen = out.length;
    child.kill('SIGUSR2');
    for (;;) {
      const match = /cpu_us=(\d+) requests=(\d+)/.exec(out.slice(seen));
      if (match?.[1] && match[2]) return Number(match[1]) / Math.max(1, Number(match[2]));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { url: `http://127.0.0.1:${port}/webhooks`, child, cpuPerRequest };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function load(
  name: string,
  server: Server,
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
  await server.cpuPerRequest(); // resets the server's counters
  const result = await autocannon({
    url: server.url,
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
    cpuUs: await server.cpuPerRequest(),
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

function print(figures: Figures): void {
  process.stdout.write(
    `${figures.name.padEnd(42)} ${figures.reqPerSec.toFixed(0).padStart(7)} req/s   p50 ${String(figures.p50).padStart(4)} ms   p99 ${String(figures.p99).padStart(4)} ms   cpu ${figures.cpuUs.toFixed(0).padStart(4)} µs/req   non-2xx ${figures.non2xx}   errors ${figures.errors}\n`,
  );
}

/** Ingress throughput and latency of the listener against a bare Express 5 floor, in one run. */
export async function run(): Promise<void> {
  const make = bodies();
  process.stdout.write(
    `${CONNECTIONS} connections, ${DURATION_S} s each; server in its own process, real Redis; ` +
      `cpu = the server process's CPU time per request\n`,
  );

  const bare = await startServer('bare');
  const floor = await load(
    'bare Express 5 (raw body, 200), 1 KB JSON',
    bare,
    'application/json',
    make.json,
  );
  await stop(bare.child);
  print(floor);

  const noRedis = await startServer('listener-no-redis');
  const withoutQueue = await load(
    'listener without the enqueue (diagnostic)',
    noRedis,
    'application/json',
    make.json,
  );
  await stop(noRedis.child);
  print(withoutQueue);

  const listener = await startServer('listener');
  try {
    const json = await load('listener, signed 1 KB JSON', listener, 'application/json', make.json);
    print(json);
    const xml = await load('listener, signed 2 KB XML', listener, 'application/xml', make.xml);
    print(xml);
    const paced = await load(
      'listener, 1 KB JSON at 1,000 req/s',
      listener,
      'application/json',
      make.json,
      {
        overallRate: 1000,
        connections: 20,
      },
    );
    print(paced);
    const ratio = (a: number, b: number): string => (a / b).toFixed(2);
    process.stdout.write(
      `\nJSON ingress / Express floor: ${ratio(json.reqPerSec, floor.reqPerSec)} req/s (target >= 0.90); ` +
        `server CPU per request ${ratio(json.cpuUs, floor.cpuUs)} x the floor's\n` +
        `XML ingress / Express floor:  ${ratio(xml.reqPerSec, floor.reqPerSec)} req/s\n` +
        `JSON without the enqueue / Express floor: ${ratio(withoutQueue.reqPerSec, floor.reqPerSec)} req/s; ` +
        `CPU per request ${ratio(withoutQueue.cpuUs, floor.cpuUs)} x\n` +
        `p99 at 1,000 req/s: ${paced.p99} ms (target < 25 ms)\n`,
    );
  } finally {
    await stop(listener.child);
  }
}
