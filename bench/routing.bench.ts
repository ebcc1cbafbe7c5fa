import { Connection } from 'rabbitmq-client';
import { buildServers } from './ingress/build-servers';
import { NOT_PINNED } from './ingress/cores';
import { benchRedis } from './ingress/private-redis';
import type { BenchRedis } from './ingress/private-redis';
import { median } from './ingress/median';
import { historyPipeline, historyTargetLines } from './routing/history-pipeline';
import type { HistoryResults } from './routing/history-pipeline';
import {
  baselineBuild,
  currentBuild,
  ourPipeline,
  peerPipeline,
  shapedPipelines,
} from './routing/pipelines';
import type { Pipeline } from './routing/pipelines';
import { loadAverage } from './routing/process-cpu';
import { benchPostgres } from './routing/bench-postgres';
import type { BenchPostgres } from './routing/bench-postgres';
import { benchRabbitmq } from './routing/bench-rabbitmq';
import type { BenchRabbitmq } from './routing/bench-rabbitmq';
import { pathCpu, printPipeline, runPipeline } from './routing/run-pipeline';
import type { BenchLoad, Phase } from './routing/run-pipeline';
import { watchedOneRedis } from './routing/watched-redis';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** The paced phase's rate, events per second. */
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
/** A git ref: its build runs in the same rounds (the pre-change figures). */
const BASELINE = process.env.BENCH_BASELINE;
const LOAD: BenchLoad = {
  events: EVENTS,
  connections: CONNECTIONS,
  rate: RATE,
  secret: 'bench-secret-of-the-routing',
};
/** The history-on pipeline's own figures (lag, rows), beside its phases. */
const HISTORY_ON = 'ours, history on';
const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/**
 * `npm run bench -- routing`: each pipeline in turn (in reverse in even rounds) takes EVENTS
 * signed LOAN events paced at BENCH_RATE per second, then EVENTS at full speed, and delivers
 * each to RabbitMQ (publisher confirms) and to an fsync'd file. The pipelines: ours (listener,
 * worker, two routes), ours with history on (history-pipeline.ts), ours with the RabbitMQ route
 * shaped (two cases, pipelines.ts), the one-hop peer (a typical listener and a worker that
 * publishes and appends in one job), and, with BENCH_BASELINE=<ref>, ours at that ref. End to end is posted → seen on both destinations;
 * CPU per event is read from /proc for every process on the path. Redis, RabbitMQ and (for the
 * history case) PostgreSQL are the bench's own private servers, so other users of the machine's
 * do not count (BENCH_REDIS_URL, BENCH_AMQP_URL, BENCH_DATABASE_URL: a given server instead).
 */
export async function run(): Promise<void> {
  buildServers();
  const history: HistoryResults = { paced: [], full: [] };
  const pipelines: Pipeline[] = [
    ourPipeline('ours', currentBuild),
    historyPipeline(HISTORY_ON, currentBuild, history),
    ...shapedPipelines,
    peerPipeline,
  ];
  if (process.env.BENCH_QUEUED === '1') {
    pipelines.push(ourPipeline('ours, ROUTE_INLINE=off', currentBuild, { ROUTE_INLINE: 'off' }));
  }
  if (BASELINE !== undefined)
    pipelines.push(ourPipeline(`before (${BASELINE})`, baselineBuild(BASELINE)));
  // The A/A control: the same build as `ours` again, in the same rounds — the spread two runs of
  // one code show here, against which a difference between pipelines is read.
  if (process.env.BENCH_AA === '1') pipelines.push(ourPipeline('ours again (A/A)', currentBuild));
  const only = chosenPipelines(pipelines);
  pipelines.splice(0, pipelines.length, ...only);
  const servers = await startServers(pipelines);
  const { redis, broker } = servers;
  const rabbit = new Connection(broker.url);
  const watched = watchedOneRedis(redis.url);
  const results = new Map<string, { paced: Phase[]; full: Phase[] }>();
  print(
    `${String(EVENTS)} LOAN events per phase, ${String(CONNECTIONS)} connections, paced at ${String(RATE)}/s then full speed; ${String(ROUNDS)} round(s); ${serversText(servers)}`,
  );
  try {
    for (let round = 1; round <= ROUNDS; round += 1) {
      // Even rounds run the pipelines in reverse, so none always runs right after the same one.
      for (const pipeline of round % 2 === 0 ? [...pipelines].reverse() : pipelines) {
        const load = loadAverage();
        const phases = await runPipeline(
          pipeline,
          { redis: watched, broker, databaseUrl: servers.database?.url, rabbit },
          LOAD,
          print,
        );
        await redis.flush();
        const entry = results.get(pipeline.name) ?? { paced: [], full: [] };
        entry.paced.push(phases.paced);
        entry.full.push(phases.full);
        results.set(pipeline.name, entry);
        printPipeline(
          `round ${String(round)}, ${pipeline.name} (load average ${load})`,
          phases,
          RATE,
          print,
        );
      }
    }
    printTargets(results, pipelines, history);
    for (const shaped of shapedPipelines) printShapedTarget(results, shaped.name);
  } finally {
    watched.close();
    await rabbit.close();
    await servers.stop();
  }
}

/** The servers of a run: Redis, RabbitMQ, and PostgreSQL when a pipeline of the run uses it. */
interface BenchServers {
  readonly redis: BenchRedis & { readonly private: boolean };
  readonly broker: BenchRabbitmq;
  readonly database: BenchPostgres | undefined;
  stop(): Promise<void>;
}

async function startServers(pipelines: readonly Pipeline[]): Promise<BenchServers> {
  const redis = await benchRedis(NOT_PINNED);
  const started: { stop(): Promise<void> }[] = [redis];
  const stop = async (): Promise<void> => {
    for (const server of [...started].reverse()) await server.stop();
  };
  try {
    const broker = await benchRabbitmq();
    started.push(broker);
    const usesDatabase = pipelines.some((pipeline) => pipeline.usesDatabase === true);
    const database = usesDatabase ? await benchPostgres() : undefined;
    if (database !== undefined) started.push(database);
    return { redis, broker, database, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function serversText({ redis, broker, database }: BenchServers): string {
  const where = (server: { url: string; private: boolean }): string =>
    server.private ? 'private' : server.url;
  const postgres = database === undefined ? '' : `; PostgreSQL: ${where(database)}`;
  return `Redis: ${where(redis)}; RabbitMQ: ${where(broker)}${postgres}`;
}

/**
 * BENCH_PIPELINES=<name>|<name>…: only these pipelines (for more rounds of one comparison); a
 * target whose pipelines did not run prints NaN.
 */
function chosenPipelines(pipelines: readonly Pipeline[]): Pipeline[] {
  const names = process.env.BENCH_PIPELINES?.split('|').map((name) => name.trim());
  if (names === undefined) return [...pipelines];
  const unknown = names.filter((name) => !pipelines.some((pipeline) => pipeline.name === name));
  if (unknown.length > 0) {
    const known = pipelines.map(({ name }) => name).join(' | ');
    throw new Error(`BENCH_PIPELINES: no pipeline ${unknown.join(', ')} (there are: ${known})`);
  }
  return pipelines.filter((pipeline) => names.includes(pipeline.name));
}

function printTargets(
  results: ReadonlyMap<string, { paced: Phase[]; full: Phase[] }>,
  pipelines: readonly Pipeline[],
  history: HistoryResults,
): void {
  const med = (name: string, pick: (phase: Phase) => number, which: 'paced' | 'full'): number =>
    median((results.get(name)?.[which] ?? []).map(pick));
  print(`\nmedians over ${String(ROUNDS)} round(s):`);
  for (const { name } of pipelines) {
    print(
      `  ${name}: CPU path µs/event paced ${med(name, (p) => pathCpu(p.cpu), 'paced').toFixed(0)} (worker ${med(name, (p) => p.cpu.get('worker') ?? NaN, 'paced').toFixed(0)}, redis ${med(name, (p) => p.cpu.get('redis') ?? NaN, 'paced').toFixed(0)}), full ${med(name, (p) => pathCpu(p.cpu), 'full').toFixed(0)}; paced p50/p99 ${med(name, (p) => p.p50, 'paced').toFixed(0)}/${med(name, (p) => p.p99, 'paced').toFixed(0)} ms; full speed ${med(name, (p) => p.eventsPerS, 'full').toFixed(0)} events/s`,
    );
  }
  const ours = med('ours', (p) => pathCpu(p.cpu), 'paced');
  const peer = med('one-hop peer', (p) => pathCpu(p.cpu), 'paced');
  const ratio = ours / peer;
  const p99 = med('ours', (p) => p.p99, 'paced');
  const complete = (results.get('ours')?.paced ?? []).every((p) => p.complete);
  print('\ntargets:');
  print(
    `  CPU per routed event, ours / one-hop peer (paced, listener + worker + Redis + RabbitMQ): ${ratio.toFixed(2)}× (${ours.toFixed(0)} / ${peer.toFixed(0)} µs) — target ≤ 1.15×: ${ratio <= 1.15 ? 'met' : 'MISSED'}`,
  );
  print(
    `  paced ${String(RATE)}/s, ours: p99 ${p99.toFixed(0)} ms, ${complete ? 'every event at both destinations' : 'NOT every event delivered'} — target p99 < 500 ms: ${p99 < 500 && complete ? 'met' : 'MISSED'}`,
  );
  const before = pipelines.find(({ name }) => name.startsWith('before'));
  if (before === undefined) {
    print(
      '  full speed, ours / before: not measured (set BENCH_BASELINE=<git ref>) — target ≥ 1.5×',
    );
  } else {
    const gain =
      med('ours', (p) => p.eventsPerS, 'full') / med(before.name, (p) => p.eventsPerS, 'full');
    print(
      `  full speed, ours / ${before.name}: ${gain.toFixed(2)}× — target ≥ 1.5×: ${gain >= 1.5 ? 'met' : 'MISSED'}`,
    );
  }
  const full = (name: string): number => med(name, (p) => p.eventsPerS, 'full');
  const cpuOf = (name: string): { paced: number; full: number } => ({
    paced: med(name, (p) => pathCpu(p.cpu), 'paced'),
    full: med(name, (p) => pathCpu(p.cpu), 'full'),
  });
  const cpu = { off: cpuOf('ours'), on: cpuOf(HISTORY_ON) };
  for (const line of historyTargetLines(full('ours'), full(HISTORY_ON), cpu, history)) print(line);
}

/**
 * The shaped case (`where` + `mask: patron` + a JSONata transform on the RabbitMQ route) against
 * ours unshaped: full-speed events/s of each round (both ran in that round) and their
 * median, target ≥ 0.90; and the CPU each costs per event.
 */
function printShapedTarget(
  results: ReadonlyMap<string, { paced: Phase[]; full: Phase[] }>,
  name: string,
): void {
  const plain = results.get('ours');
  const shaped = results.get(name);
  if (plain === undefined || shaped === undefined) return;
  const rounds = shaped.full.map((one, round) => {
    const unshaped = plain.full[round]?.eventsPerS ?? Number.NaN;
    return { shaped: one.eventsPerS, unshaped, ratio: one.eventsPerS / unshaped };
  });
  const each = rounds
    .map(
      (one, round) =>
        `round ${String(round + 1)}: ${one.shaped.toFixed(0)} / ${one.unshaped.toFixed(0)} = ${one.ratio.toFixed(2)}`,
    )
    .join('; ');
  const ratio = median(rounds.map((one) => one.ratio));
  print(
    `  full speed, ${name} / ours (events/s end to end, ${each}): median ${ratio.toFixed(2)}× — target ≥ 0.90×: ${ratio >= 0.9 ? 'met' : 'MISSED'}`,
  );
  const cpu = (phases: readonly Phase[], pick: (phase: Phase) => number): string =>
    median(phases.map(pick)).toFixed(0);
  const worker = (phase: Phase): number => phase.cpu.get('worker') ?? Number.NaN;
  const onPath = (phase: Phase): number => pathCpu(phase.cpu);
  print(
    `    CPU µs/event, shaped vs ours: worker ${cpu(shaped.full, worker)} vs ${cpu(plain.full, worker)} full speed, ${cpu(shaped.paced, worker)} vs ${cpu(plain.paced, worker)} paced; path ${cpu(shaped.full, onPath)} vs ${cpu(plain.full, onPath)} full speed, ${cpu(shaped.paced, onPath)} vs ${cpu(plain.paced, onPath)} paced`,
  );
}
