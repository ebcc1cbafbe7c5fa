import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { signWebhookBody } from '../src/http/webhook-signature';
import { INGRESS_STAGES } from './servers/ingress-stages';
import type { IngressStage } from './servers/ingress-stages';

const SECRET = 'bench-secret-of-the-ingress';
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

type ServerKind =
  'listener' | 'listener-no-redis' | 'bare' | 'bare-enqueue' | { stagesUpTo: IngressStage };

async function startServer(kind: ServerKind): Promise<Server> {
  const [script, args] =
    typeof kind === 'string'
      ? ['listener-server.ts', [kind, `bench-${randomUUID().slice(0, 8)}`]]
      : ['ingress-stages-server.ts', [kind.stagesUpTo]];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'servers', script), ...args],
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
      reject(new Error(`${script} ${args.join(' ')} exited with ${String(code)}`));
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

/** Starts a server, loads it with signed 1 KB JSON, stops it, prints and returns the figures. */
async function measure(
  name: string,
  kind: ServerKind,
  body: (id: string) => string,
): Promise<Figures> {
  const server = await startServer(kind);
  try {
    const figures = await load(name, server, 'application/json', body);
    print(figures);
    return figures;
  } finally {
    await stop(server.child);
  }
}

/**
 * Ingress throughput and latency of the listener against a bare Express 5 floor, in one run; then
 * diagnostics that show where the gap between them goes: the floor plus each stage of the
 * listener's pipeline in turn (no Redis), and the floor plus nothing but a BullMQ add.
 */
export async function run(): Promise<void> {
  const make = bodies();
  process.stdout.write(
    `${CONNECTIONS} connections, ${DURATION_S} s each; server in its own process, real Redis; ` +
      `cpu = the server process's CPU time per request\n`,
  );
  const floor = await measure('bare Express 5 (raw body, 200), 1 KB JSON', 'bare', make.json);

  const listener = await startServer('listener');
  let json: Figures;
  let xml: Figures;
  let paced: Figures;
  try {
    json = await load('listener, signed 1 KB JSON', listener, 'application/json', make.json);
    print(json);
    xml = await load('listener, signed 2 KB XML', listener, 'application/xml', make.xml);
    print(xml);
    paced = await load(
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
  } finally {
    await stop(listener.child);
  }

  process.stdout.write('\ndiagnostics: where the gap to the floor goes\n');
  const diagnostics: Figures[] = [];
  for (const stage of INGRESS_STAGES) {
    const upTo = INGRESS_STAGES.slice(0, INGRESS_STAGES.indexOf(stage) + 1).join(' + ');
    diagnostics.push(await measure(`floor + ${upTo}`, { stagesUpTo: stage }, make.json));
  }
  diagnostics.push(
    await measure('listener with the enqueue answered at once', 'listener-no-redis', make.json),
  );
  diagnostics.push(await measure('floor + a BullMQ add, nothing else', 'bare-enqueue', make.json));

  const ratio = (a: number, b: number): string => (a / b).toFixed(2);
  process.stdout.write('\nreq/s and CPU per request against the floor\n');
  for (const figures of [json, xml, ...diagnostics]) {
    process.stdout.write(
      `  ${figures.name.padEnd(48)} ${ratio(figures.reqPerSec, floor.reqPerSec)} x req/s   ` +
        `${ratio(figures.cpuUs, floor.cpuUs)} x CPU\n`,
    );
  }
  process.stdout.write(
    `\nJSON ingress / Express floor: ${ratio(json.reqPerSec, floor.reqPerSec)} req/s (target >= 0.90)\n` +
      `p99 at 1,000 req/s: ${paced.p99} ms (target < 25 ms)\n`,
  );
}
