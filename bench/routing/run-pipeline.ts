import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Connection } from 'rabbitmq-client';
import { commandCounts, commandText } from '../ingress/command-counts';
import type { BenchRabbitmq } from './bench-rabbitmq';
import type { Pipeline, RunningPipeline } from './pipelines';
import { postEvents } from './post-events';
import { cpuProbe } from './process-cpu';
import { createTracker, quantile } from './tracker';
import { consumeExchange, tailJsonLines } from './watch-destinations';

/** The pipeline's own processes: the path's CPU leaves out the bench's load generator and watchers. */
const PATH_PROCESSES = ['listener', 'worker', 'redis', 'rabbitmq', 'postgres'] as const;

/** What one phase (paced or full speed) of one pipeline measured. */
export interface Phase {
  readonly complete: boolean;
  /** Posts answered 503 and posted again. */
  readonly refused: number;
  readonly postsPerS: number;
  readonly eventsPerS: number;
  readonly drainS: number;
  readonly p50: number;
  readonly p99: number;
  /** Process → CPU µs per event. */
  readonly cpu: ReadonlyMap<string, number>;
  /** What the pipeline adds about the phase (the history's lag and rows). */
  readonly notes: readonly string[];
  /** Redis commands per routed event, by command (listener and worker; INFO commandstats). */
  readonly commands: ReadonlyMap<string, number>;
}

/** The load of each phase: how many signed LOAN events, over how many connections. */
export interface BenchLoad {
  readonly events: number;
  readonly connections: number;
  /** The paced phase's rate, events per second. */
  readonly rate: number;
  readonly secret: string;
}

/** The Redis a pipeline runs on, as the bench watches it: one server or a cluster's nodes. */
export interface WatchedRedis {
  /** REDIS_URL of the pipeline's processes (on a cluster, REDIS_CLUSTER_NODES decides instead). */
  readonly url: string;
  /** The ports of its redis-server processes: their CPU, summed, is the phase's `redis`. */
  readonly ports: readonly string[];
  /** CONFIG RESETSTAT, from the bench's own connections (their INFO calls are not counted). */
  resetStats(): Promise<void>;
  /** INFO commandstats of the servers that took commands (a cluster's primaries), joined. */
  commandStats(): Promise<string>;
  /** One line: where a queue's unfinished events are, for a phase that did not complete. */
  unfinished(queueName: string): Promise<string>;
}

export interface PipelineServers {
  readonly redis: WatchedRedis;
  readonly broker: BenchRabbitmq;
  readonly databaseUrl: string | undefined;
  readonly rabbit: Connection;
}

/**
 * One pipeline started on its own queue, exchange and directory; a paced phase (load.rate per
 * second), then one at full speed; stopped and cleaned up.
 */
export async function runPipeline(
  pipeline: Pipeline,
  { redis, broker, databaseUrl, rabbit }: PipelineServers,
  load: BenchLoad,
  print: (line: string) => void,
): Promise<{ paced: Phase; full: Phase }> {
  const id = randomUUID().slice(0, 8);
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-routing-'));
  const exchange = `bench-routing-${id}`;
  await rabbit.exchangeDeclare({ exchange, type: 'topic', durable: true });
  const setup = {
    redisUrl: redis.url,
    amqpUrl: broker.url,
    databaseUrl,
    secret: load.secret,
    name: `bench-routing-${id}`,
    exchange,
    dir,
  };
  const running = await pipeline.start(setup);
  try {
    const on = { running, redis, isBroker: broker.isBroker, rabbit, exchange, dir };
    const paced = await phase(on, load, load.rate);
    if (!paced.complete) print(`  (paced, unfinished: ${await redis.unfinished(setup.name)})`);
    const full = await phase(on, load, undefined);
    if (!full.complete) print(`  (full speed, unfinished: ${await redis.unfinished(setup.name)})`);
    return { paced, full };
  } finally {
    await running.stop();
    await rabbit.exchangeDelete({ exchange }).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

interface PhaseOn {
  readonly running: RunningPipeline;
  readonly redis: WatchedRedis;
  readonly isBroker: (commandLine: string) => boolean;
  readonly rabbit: Connection;
  readonly exchange: string;
  readonly dir: string;
}

async function phase(
  { running, redis, isBroker, rabbit, exchange, dir }: PhaseOn,
  load: BenchLoad,
  rate: number | undefined,
): Promise<Phase> {
  const seen = createTracker(load.events);
  const consumer = await consumeExchange(rabbit, exchange, (id) => seen.arrived(id, 'amqp'));
  const tail = tailJsonLines(dir, (id) => seen.arrived(id, 'file'));
  try {
    await redis.resetStats();
    const cpu = cpuProbe(running.processes, redis.ports, isBroker);
    const more = running.cpu?.();
    const started = performance.now();
    const refused = await postEvents({
      url: running.url,
      secret: load.secret,
      events: load.events,
      connections: load.connections,
      rate,
      posted: seen.posted,
    });
    const postedIn = performance.now() - started;
    const complete = await seen.all(120_000);
    const elapsed = performance.now() - started;
    // What follows the deliveries (the history's writes) counts in the phase's CPU.
    const notes = (await running.afterPhase?.(load.events, Date.now())) ?? [];
    const spent = new Map([...cpu.since(), ...((await more?.since()) ?? [])]);
    const events = Math.max(1, seen.latencies.length);
    const commands = commandCounts(await redis.commandStats(), events);
    return {
      complete,
      refused,
      postsPerS: load.events / (postedIn / 1000),
      eventsPerS: seen.latencies.length / (elapsed / 1000),
      drainS: (elapsed - postedIn) / 1000,
      p50: quantile(seen.latencies, 0.5),
      p99: quantile(seen.latencies, 0.99),
      cpu: new Map([...spent].map(([name, us]) => [name, us / events])),
      notes,
      commands,
    };
  } finally {
    tail.stop();
    // The next phase's consumer declares the same queue name: this one must be gone first.
    await consumer.close();
  }
}

/** CPU µs per event of the pipeline's own processes (listener, worker, Redis, RabbitMQ, …). */
export function pathCpu(cpu: ReadonlyMap<string, number>): number {
  return PATH_PROCESSES.reduce((sum, name) => sum + (cpu.get(name) ?? 0), 0);
}

/** A pipeline's two phases, a few lines each. */
export function printPipeline(
  title: string,
  phases: { paced: Phase; full: Phase },
  rate: number,
  print: (line: string) => void,
): void {
  print(`\n${title}`);
  for (const [label, one] of [
    [`paced ${String(rate)}/s`, phases.paced],
    ['full speed', phases.full],
  ] as const) {
    const cpu = [...one.cpu].map(([name, us]) => `${name} ${us.toFixed(0)}`).join(', ');
    print(
      `  ${label}: ${one.complete ? '' : 'INCOMPLETE (120 s) '}${one.postsPerS.toFixed(0)} posts/s, ${one.eventsPerS.toFixed(0)} events/s end to end (last ${one.drainS.toFixed(2)} s after the last post), p50 ${one.p50.toFixed(0)} ms, p99 ${one.p99.toFixed(0)} ms${one.refused > 0 ? `, ${String(one.refused)} posts answered 503, reset or unanswered, and posted again` : ''}`,
    );
    print(`    CPU µs/event: ${cpu}; path ${pathCpu(one.cpu).toFixed(0)}`);
    print(`    Redis commands/event: ${commandText(one.commands)}`);
    for (const note of one.notes) print(`    ${note}`);
  }
}
