import { Connection } from 'rabbitmq-client';
import { buildServers } from './ingress/build-servers';
import { NOT_PINNED } from './ingress/cores';
import { median } from './ingress/median';
import { benchRedis } from './ingress/private-redis';
import { benchCluster } from './routing/bench-cluster';
import type { BenchCluster } from './routing/bench-cluster';
import { benchRabbitmq } from './routing/bench-rabbitmq';
import { currentBuild, ourPipeline } from './routing/pipelines';
import type { Pipeline } from './routing/pipelines';
import { loadAverage } from './routing/process-cpu';
import { pathCpu, printPipeline, runPipeline } from './routing/run-pipeline';
import type { BenchLoad, Phase, WatchedRedis } from './routing/run-pipeline';
import { watchedCluster, watchedOneRedis } from './routing/watched-redis';

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const LOAD: BenchLoad = {
  events: Number(process.env.BENCH_EVENTS ?? 5000),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  rate: Number(process.env.BENCH_RATE ?? 500),
  secret: 'bench-secret-of-the-cluster',
};
const ONE = 'one Redis';
const CLUSTER = 'Redis Cluster, 3 primaries + 3 replicas';
const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** One of the two cases: the pipeline, the Redis it runs on, and how that Redis is emptied. */
interface Case {
  readonly pipeline: Pipeline;
  readonly redis: WatchedRedis;
  flush(): Promise<void>;
  /** After a pipeline: what it left, where (the cluster's keys per primary). */
  placement?(): Promise<string[]>;
}

/**
 * `npm run bench -- cluster`: the routing bench's pipeline (the real listener and worker, a LOAN
 * route to RabbitMQ with confirms and an fsync'd file archive, routing.bench.ts) on one Redis and
 * on a private 6-node Redis Cluster, in the same run, alternately first: BENCH_EVENTS signed
 * events paced at BENCH_RATE/s, then as many at full speed. End-to-end events/s, and CPU per
 * routed event of the listener, the worker, RabbitMQ and every Redis node of the case (a
 * cluster's six summed); Redis commands per event (a cluster's primaries summed); and where the
 * keys were left on the cluster's primaries, by hash tag. No WAIT on either (REDIS_ACK_REPLICAS=0).
 */
export async function run(): Promise<void> {
  buildServers();
  const redis = await benchRedis(NOT_PINNED);
  const started: { stop(): Promise<void> }[] = [redis];
  try {
    const cluster = await benchCluster();
    started.push(cluster);
    const broker = await benchRabbitmq();
    started.push(broker);
    const rabbit = new Connection(broker.url);
    const one = watchedOneRedis(redis.url);
    const onCluster = watchedCluster(cluster);
    try {
      const cases = twoCases(redis, one, cluster, onCluster);
      print(
        `${String(LOAD.events)} LOAN events per phase, ${String(LOAD.connections)} connections, paced at ${String(LOAD.rate)}/s then full speed; ${String(ROUNDS)} round(s); private Redis, cluster and RabbitMQ`,
      );
      const results = new Map<string, { paced: Phase[]; full: Phase[] }>();
      for (let round = 1; round <= ROUNDS; round += 1) {
        for (const one of round % 2 === 0 ? [...cases].reverse() : cases) {
          const load = loadAverage();
          const servers = { redis: one.redis, broker, databaseUrl: undefined, rabbit };
          const phases = await runPipeline(one.pipeline, servers, LOAD, print);
          const title = `round ${String(round)}, ${one.pipeline.name} (load average ${load})`;
          printPipeline(title, phases, LOAD.rate, print);
          for (const line of (await one.placement?.()) ?? []) print(`    ${line}`);
          await one.flush();
          const entry = results.get(one.pipeline.name) ?? { paced: [], full: [] };
          entry.paced.push(phases.paced);
          entry.full.push(phases.full);
          results.set(one.pipeline.name, entry);
        }
      }
      printComparison(results);
    } finally {
      one.close();
      onCluster.close();
      await rabbit.close();
    }
  } finally {
    for (const server of [...started].reverse()) await server.stop();
  }
}

function twoCases(
  redis: { flush(): Promise<void> },
  one: WatchedRedis,
  cluster: BenchCluster,
  onCluster: WatchedRedis,
): Case[] {
  const clusterEnv = { REDIS_CLUSTER_NODES: cluster.seeds };
  return [
    { pipeline: ourPipeline(ONE, currentBuild), redis: one, flush: () => redis.flush() },
    {
      pipeline: ourPipeline(CLUSTER, currentBuild, clusterEnv),
      redis: onCluster,
      flush: () => cluster.flush(),
      placement: async () => placementLines(await cluster.keysPerPrimary()),
    },
  ];
}

/** `keys left on primary :port: N ({tag} n, …)`, a line per primary. */
function placementLines(keys: ReadonlyMap<number, ReadonlyMap<string, number>>): string[] {
  return [...keys].map(([port, tags]) => {
    const total = [...tags.values()].reduce((sum, count) => sum + count, 0);
    const each = [...tags]
      .sort((a, b) => b[1] - a[1])
      .map(([tag, count]) => `${tag} ${String(count)}`)
      .join(', ');
    return `keys left on primary :${String(port)}: ${String(total)}${each === '' ? '' : ` (${each})`}`;
  });
}

function printComparison(results: ReadonlyMap<string, { paced: Phase[]; full: Phase[] }>): void {
  const med = (name: string, which: 'paced' | 'full', pick: (phase: Phase) => number): number =>
    median((results.get(name)?.[which] ?? []).map(pick));
  print(`\nmedians over ${String(ROUNDS)} round(s):`);
  for (const name of [ONE, CLUSTER]) {
    const redisCpu = (which: 'paced' | 'full'): string =>
      med(name, which, (p) => p.cpu.get('redis') ?? Number.NaN).toFixed(0);
    print(
      `  ${name}: full speed ${med(name, 'full', (p) => p.eventsPerS).toFixed(0)} events/s; CPU path µs/event paced ${med(name, 'paced', (p) => pathCpu(p.cpu)).toFixed(0)} (Redis ${redisCpu('paced')}), full speed ${med(name, 'full', (p) => pathCpu(p.cpu)).toFixed(0)} (Redis ${redisCpu('full')}); paced p50/p99 ${med(name, 'paced', (p) => p.p50).toFixed(0)}/${med(name, 'paced', (p) => p.p99).toFixed(0)} ms`,
    );
  }
  const ratio = (which: 'paced' | 'full', pick: (phase: Phase) => number): string =>
    (med(CLUSTER, which, pick) / med(ONE, which, pick)).toFixed(2);
  print(
    `  cluster / one Redis: full-speed events/s ${ratio('full', (p) => p.eventsPerS)}×; CPU per routed event ${ratio('paced', (p) => pathCpu(p.cpu))}× paced, ${ratio('full', (p) => pathCpu(p.cpu))}× full speed`,
  );
}
