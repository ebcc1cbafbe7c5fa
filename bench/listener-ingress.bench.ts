import { loadavg } from 'node:os';
import { Queue } from 'bullmq';
import { startBenchServer } from './ingress/bench-server';
import { buildBaseline } from './ingress/build-baseline';
import { buildServers } from './ingress/build-servers';
import type { BenchServer, BenchServerSpec } from './ingress/bench-server';
import { benchCores } from './ingress/cores';
import type { Cores } from './ingress/cores';
import { loadServer } from './ingress/load-server';
import type { LoadFigures } from './ingress/load-server';
import { median } from './ingress/median';
import { benchRedis } from './ingress/private-redis';
import { startDiscardingOtlpSink } from './ingress/discarding-otlp-sink';
import { signedBodies } from './ingress/signed-bodies';
import type { BodyKind } from './ingress/signed-bodies';
import { INGRESS_STAGES } from './servers/ingress-stages';
import { loadWithRedisDown, redisDown, spoolVerdicts, withSpool } from './ingress/spool-cases';

const SPOOLED = 'ours with SPOOL_DIR, signed 1 KB JSON';

const SECRET = 'bench-secret-of-the-ingress';
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 3);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const BODIES = Number(process.env.BENCH_BODIES ?? 80000);
const QUEUES = {
  typical: 'bench-typical',
  ours: 'bench-ours',
  traced: 'bench-traced',
  baseline: 'bench-baseline',
  spooled: 'bench-spooled',
};
/** A git ref whose listener is measured in the same rounds as ours: the "before" of a change. */
const BASELINE = process.env.BENCH_BASELINE;

/** One measured case: a server and a body kind, loaded once per round. */
interface Case {
  name: string;
  server: BenchServer;
  kind: BodyKind;
  runs: LoadFigures[];
}

interface Bench {
  cores: Cores;
  redisUrl: string;
  /** Empties the queues between loads, so no load pays for the jobs of the one before. */
  clear: () => Promise<void>;
}

/**
 * Ingress cost per delivery: the floor (bare Express 5), a typical listener and ours
 * (src/bin/web.ts as it ships), each in its own process on the server's core, loaded in turn with
 * signed bodies made before the clock runs; medians of BENCH_ROUNDS rounds after a warm-up. Ours
 * also with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT: a local sink that discards), to print what
 * tracing costs beside tracing off; ours with SPOOL_DIR, to print what the spool costs with Redis
 * up, and with Redis down what it takes. Then ours paced at 1,000/s, and diagnostics that show stage by
 * stage where our CPU goes.
 */
export async function run(): Promise<void> {
  buildServers();
  const cores = benchCores();
  const redis = await benchRedis(cores);
  const bench: Bench = { cores, redisUrl: redis.url, clear: redis.flush };
  if (!redis.private) bench.clear = () => obliterate(redis.url);
  write(
    `${cores.description}; Redis ${redis.private ? 'private (no persistence)' : redis.url}\n` +
      `${CONNECTIONS} connections, ${DURATION_S} s a load, ${ROUNDS} rounds after ${WARMUP_S} s ` +
      `of warm-up; medians; load average at start ${loadAverage()}\n\n`,
  );
  const sink = await startDiscardingOtlpSink();
  const servers = await startServers(bench, sink.url);
  try {
    const cases: Case[] = [
      { name: 'floor: bare Express 5, 1 KB JSON', server: servers.floor, kind: 'json', runs: [] },
      { name: 'typical listener, 1 KB JSON', server: servers.typical, kind: 'json', runs: [] },
      { name: 'ours, signed 1 KB JSON', server: servers.ours, kind: 'json', runs: [] },
      { name: 'ours, signed 2 KB XML', server: servers.ours, kind: 'xml', runs: [] },
      { name: 'ours traced, signed 1 KB JSON', server: servers.traced, kind: 'json', runs: [] },
    ];
    const spooled: Case = { name: SPOOLED, server: servers.spooled, kind: 'json', runs: [] };
    if (servers.baseline) {
      const server = servers.baseline;
      cases.push({ name: `ours at ${BASELINE}, 1 KB JSON`, server, kind: 'json', runs: [] });
      cases.push({ name: `ours at ${BASELINE}, 2 KB XML`, server, kind: 'xml', runs: [] });
    }
    // Last, so the positions the summaries read (baseline included) stay as they were.
    cases.push(spooled);
    await rounds(bench, cases);
    const paced = await pacedRun(bench, servers.ours);
    const down = await redisDownRun(servers.down);
    verdicts(cases, paced);
    tracingCost(cases);
    const [off, on] = [cases[2], spooled].map((one) => one && summary(one).figures);
    if (off && on) spoolVerdicts(off, on, down, write);
    if (servers.baseline) beforeAfter(cases);
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    await sink.close();
  }
  if (process.env.BENCH_DIAGNOSTICS !== '0') await diagnostics(bench);
  await redis.stop();
  write(`\nload average at the end ${loadAverage()}\n`);
}

type Servers = Record<'floor' | 'typical' | 'ours' | 'traced' | 'spooled' | 'down', BenchServer> & {
  baseline?: BenchServer;
};

async function startServers(bench: Bench, otlpUrl: string): Promise<Servers> {
  const { cores, redisUrl } = bench;
  const baselineScript = BASELINE === undefined ? undefined : buildBaseline(BASELINE);
  const [floor, typical, ours, traced, spooled, down] = await Promise.all([
    startBenchServer({ name: 'floor', script: 'bench/servers/floor-server.ts', env: {} }, cores),
    startBenchServer(
      {
        name: 'typical',
        script: 'bench/servers/typical-listener-server.ts',
        env: { WEBHOOK_SECRET: SECRET, REDIS_URL: redisUrl, QUEUE_NAME: QUEUES.typical },
      },
      cores,
    ),
    startBenchServer(oursSpec(redisUrl), cores),
    startBenchServer(tracedSpec(redisUrl, otlpUrl), cores),
    startBenchServer(withSpool(oursSpec(redisUrl), 'spooled', QUEUES.spooled), cores),
    startBenchServer(await redisDown(oursSpec(redisUrl)), cores),
  ]);
  if (baselineScript === undefined) return { floor, typical, ours, traced, spooled, down };
  const base = oursSpec(redisUrl);
  const baseline = await startBenchServer(
    {
      ...base,
      name: 'baseline',
      script: baselineScript,
      env: { ...base.env, QUEUE_NAME: QUEUES.baseline },
    },
    cores,
  );
  return { floor, typical, ours, traced, spooled, down, baseline };
}

/** BENCH_BASELINE: CPU per delivery of ours against the same listener at the given ref. */
function beforeAfter(cases: Case[]): void {
  const [, , json, xml, , baseJson, baseXml] = cases.map(summary);
  if (!json || !xml || !baseJson || !baseXml) return;
  write(`\nbefore (${BASELINE}) and after, CPU per delivery (medians of the same rounds)\n`);
  for (const [before, after] of [
    [baseJson, json],
    [baseXml, xml],
  ] as const) {
    const change = (100 * (after.figures.cpuUs - before.figures.cpuUs)) / before.figures.cpuUs;
    write(
      `  ${after.name.padEnd(44)} ${before.figures.cpuUs.toFixed(0)} µs -> ${after.figures.cpuUs.toFixed(0)} µs (${change.toFixed(0)} %)\n`,
    );
  }
}

/** The listener as `npm start` runs it, configured by its environment alone. */
function oursSpec(redisUrl: string): BenchServerSpec {
  return {
    name: 'ours',
    script: 'src/bin/web.ts',
    env: {
      WEBHOOK_SECRET: SECRET,
      REDIS_URL: redisUrl,
      QUEUE_NAME: QUEUES.ours,
      LOG_LEVEL: 'info',
    },
    readyPath: '/readyz',
  };
}

/** Ours with OTEL_EXPORTER_OTLP_ENDPOINT set: every delivery traced (default sampler) and exported. */
function tracedSpec(redisUrl: string, otlpUrl: string): BenchServerSpec {
  const base = oursSpec(redisUrl);
  return {
    ...base,
    name: 'traced',
    env: { ...base.env, QUEUE_NAME: QUEUES.traced, OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl },
  };
}

/** What tracing on costs per delivery, beside tracing off (medians of the same rounds). */
function tracingCost(cases: Case[]): void {
  const [, , off, , on] = cases.map(summary);
  if (!off || !on) return;
  const change = (100 * (on.figures.cpuUs - off.figures.cpuUs)) / off.figures.cpuUs;
  write(
    `
tracing, CPU per delivery (1 KB JSON, OTLP http/protobuf to a local sink)
` +
      `  off ${off.figures.cpuUs.toFixed(0)} µs -> on ${on.figures.cpuUs.toFixed(0)} µs (+${change.toFixed(0)} %)` +
      `   p99 ${String(off.figures.p99)} -> ${String(on.figures.p99)} ms
`,
  );
}

async function rounds(bench: Bench, cases: Case[]): Promise<void> {
  write('warm-up …\n');
  for (const one of cases) await measure(bench, one, WARMUP_S);
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const one of cases) {
      const figures = await measure(bench, one, DURATION_S);
      one.runs.push(figures);
      write(`round ${round}  ${line(one.name, figures)}\n`);
    }
    write(`          load average ${loadAverage()}\n`);
  }
}

async function measure(bench: Bench, one: Case, durationS: number): Promise<LoadFigures> {
  const bodies = signedBodies(one.kind, BODIES, SECRET);
  const figures = await loadServer(one.server, {
    contentType: one.kind === 'json' ? 'application/json' : 'application/xml',
    bodies,
    durationS,
    connections: CONNECTIONS,
  });
  await bench.clear();
  return figures;
}

/** Ours with a spool and Redis down, at full speed: what the spool takes (after a warm-up). */
async function redisDownRun(server: BenchServer): Promise<LoadFigures> {
  const bodies = signedBodies('json', BODIES, SECRET);
  await loadWithRedisDown(server, bodies, WARMUP_S);
  const figures = await loadWithRedisDown(server, bodies, DURATION_S);
  write(`\n${line('ours with a spool, Redis down, 1 KB JSON', figures)}\n`);
  return figures;
}

async function pacedRun(bench: Bench, ours: BenchServer): Promise<LoadFigures> {
  const figures = await loadServer(ours, {
    contentType: 'application/json',
    bodies: signedBodies('json', 20000, SECRET),
    durationS: 10,
    connections: 20,
    overallRate: 1000,
    sampleRss: true,
  });
  await bench.clear();
  write(`\n${line('ours, 1 KB JSON paced at 1,000/s', figures)}\n`);
  return figures;
}

function verdicts(cases: Case[], paced: LoadFigures): void {
  const [floor, typical, json, xml] = cases.map(summary);
  if (!floor || !typical || !json || !xml) return;
  write('\nmedians\n');
  for (const one of [floor, typical, json, xml]) write(`  ${line(one.name, one.figures)}\n`);
  const ratio = (a: number, b: number): number => a / b;
  const check = (label: string, value: number, target: string, ok: boolean): void =>
    write(
      `  ${label.padEnd(44)} ${value.toFixed(2).padStart(7)}   target ${target.padEnd(9)} ${ok ? 'met' : 'NOT MET'}\n`,
    );
  write('\ntargets (server CPU per delivery)\n');
  const vsFloor = ratio(json.figures.cpuUs, floor.figures.cpuUs);
  const vsTypical = ratio(json.figures.cpuUs, typical.figures.cpuUs);
  const xmlVsJson = ratio(xml.figures.cpuUs, json.figures.cpuUs);
  check('ours JSON / floor', vsFloor, '<= 1.50', vsFloor <= 1.5);
  // The targets of docs/benchmarks.md; the earlier 0.90 and 1.25 are in its journal.
  check('ours JSON / typical listener', vsTypical, '<= 1.00', vsTypical <= 1);
  check('ours XML 2 KB / ours JSON 1 KB', xmlVsJson, '<= 1.10', xmlVsJson <= 1.1);
  check('p99 at 1,000/s, ms', paced.p99, '< 25', paced.p99 < 25);
  check('non-2xx at 1,000/s', paced.non2xx + paced.errors, '0', paced.non2xx + paced.errors === 0);
  const rssMb = paced.maxRssBytes / 2 ** 20;
  check('listener RSS at 1,000/s, MB', rssMb, '<= 150', rssMb <= 150);
  const repeated = cases.reduce(
    (sum, one) => sum + one.runs.reduce((s, r) => s + r.repeated, 0),
    0,
  );
  if (repeated > 0) write(`  note: ${repeated} deliveries reused an id (raise BENCH_BODIES)\n`);
}

function summary(one: Case): { name: string; figures: LoadFigures } {
  const of = (pick: (figures: LoadFigures) => number): number => median(one.runs.map(pick));
  return {
    name: one.name,
    figures: {
      cpuUs: of((f) => f.cpuUs),
      reqPerSec: of((f) => f.reqPerSec),
      p50: of((f) => f.p50),
      p99: of((f) => f.p99),
      non2xx: one.runs.reduce((sum, f) => sum + f.non2xx, 0),
      errors: one.runs.reduce((sum, f) => sum + f.errors, 0),
      repeated: 0,
      maxRssBytes: Math.max(...one.runs.map((f) => f.maxRssBytes)),
    },
  };
}

/**
 * Where our CPU goes, stage by stage: the floor plus each stage of the listener's pipeline in turn
 * (the real functions, no Redis), the whole listener with the enqueue answered at once, and the
 * floor plus nothing but a BullMQ add. Medians of the same rounds.
 */
async function diagnostics(bench: Bench): Promise<void> {
  write('\ndiagnostics: CPU per delivery, stage by stage (medians)\n');
  const specs: BenchServerSpec[] = INGRESS_STAGES.map((stage, i) => ({
    name: `floor + ${INGRESS_STAGES.slice(0, i + 1).join(' + ')}`,
    script: 'bench/servers/ingress-stages-server.ts',
    args: [stage],
    env: { BENCH_SECRET: SECRET },
  }));
  for (const [kind, name] of [
    ['listener-no-redis', 'ours with the enqueue answered at once'],
    ['bare-enqueue', 'floor + a BullMQ add, nothing else'],
  ] as const) {
    specs.push({
      name,
      script: 'bench/servers/listener-server.ts',
      args: [kind, QUEUES.ours],
      env: { BENCH_SECRET: SECRET, REDIS_URL: bench.redisUrl },
    });
  }
  for (const spec of specs) {
    const server = await startBenchServer(spec, bench.cores);
    try {
      const one: Case = { name: spec.name, server, kind: 'json', runs: [] };
      await measure(bench, one, WARMUP_S);
      for (let round = 0; round < ROUNDS; round += 1)
        one.runs.push(await measure(bench, one, DURATION_S));
      write(`  ${line(one.name, summary(one).figures)}\n`);
    } finally {
      await server.stop();
    }
  }
}

async function obliterate(redisUrl: string): Promise<void> {
  for (const name of Object.values(QUEUES)) {
    const queue = new Queue(name, { connection: { url: redisUrl } });
    await queue.obliterate({ force: true });
    await queue.close();
  }
}

function line(name: string, f: LoadFigures): string {
  return (
    `${name.padEnd(44)} cpu ${f.cpuUs.toFixed(0).padStart(4)} µs   ${f.reqPerSec.toFixed(0).padStart(6)} req/s   ` +
    `p50 ${String(f.p50).padStart(3)} ms   p99 ${String(f.p99).padStart(3)} ms   non-2xx ${f.non2xx + f.errors}` +
    (f.maxRssBytes > 0 ? `   rss ${(f.maxRssBytes / 2 ** 20).toFixed(0)} MB` : '')
  );
}

function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

function write(text: string): void {
  process.stdout.write(text);
}
