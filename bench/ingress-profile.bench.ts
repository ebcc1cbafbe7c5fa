import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { buildBaseline } from './ingress/build-baseline';
import { buildServers, builtScript } from './ingress/build-servers';
import { benchCores } from './ingress/cores';
import type { Cores } from './ingress/cores';
import { largestDifferences, profileSums } from './ingress/cpu-profile-sums';
import type { ProfileSums } from './ingress/cpu-profile-sums';
import { freePort } from './ingress/free-port';
import { intakeCpu, loadTree } from './ingress/intake-cpu';
import { median } from './ingress/median';
import { benchRedis } from './ingress/private-redis';
import { commandCounts } from './ingress/command-counts';
import { signedBodies } from './ingress/signed-bodies';
import type { BodyKind, SignedBody } from './ingress/signed-bodies';

const SECRET = 'bench-secret-of-the-ingress';
const BASELINE = process.env.BENCH_BASELINE ?? 'c41354d';
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const TOP = Number(process.env.BENCH_TOP ?? 25);
const OUT = path.join(__dirname, '../.tmp/ingress-profile');
const KINDS: BodyKind[] =
  process.env.BENCH_KIND === 'xml'
    ? ['xml']
    : process.env.BENCH_KIND === 'json'
      ? ['json']
      : ['json', 'xml'];

/** What one profiled load of one listener gave. */
interface Measure {
  cpuUs: number;
  deliveries: number;
  /** Redis commands per delivery, by command (INFO commandstats of the private Redis). */
  commands: Map<string, number>;
  /** stdout lines per delivery (pino). */
  lines: number;
  sums: ProfileSums;
}

/**
 * The listener's ingress at BENCH_BASELINE (c41354d) and now, without wall time: each listener
 * (tsc's output, pinned to the server's core) takes the same BENCH_DELIVERIES signed bodies from
 * one keep-alive client after BENCH_WARMUP, with V8's profiler on for that window only
 * (bench/servers/profile-probe.ts). Printed per delivery: CPU, Redis commands, log lines, and the
 * functions whose self and total time changed most. BENCH_ROUNDS alternate the listeners.
 */
export async function run(): Promise<void> {
  buildServers();
  mkdirSync(OUT, { recursive: true });
  const sides = treesToMeasure();
  const cores = benchCores();
  const redis = await benchRedis(cores);
  write(`${cores.description}; load average at start ${loadAverage()}\n`);
  await intakeReport(sides);
  try {
    for (const kind of KINDS) {
      // The same bodies for every run: Redis is emptied between runs, so none is a duplicate.
      const bodies = signedBodies(kind, WARMUP + DELIVERIES, SECRET);
      const runs = sides.map(() => [] as Measure[]);
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const [index, side] of sides.entries()) {
          const file = path.join(OUT, `${String(index)}-${kind}-${String(round)}.cpuprofile`);
          const one = await measure(side, redis.url, cores, kind, bodies, file);
          runs[index]?.push(one);
          await redis.flush();
        }
      }
      report(kind, sides, runs);
    }
  } finally {
    await redis.stop();
  }
  write(`load average at the end ${loadAverage()}\n`);
}

/**
 * The intake alone of each tree (bytes → parse → canonical event → enqueuer, a queue that answers
 * at once) in this process: no HTTP, no Redis, so far less noise than a loaded server.
 */
async function intakeReport(sides: Side[]): Promise<void> {
  const trees = Object.fromEntries(
    sides
      .filter((side) => side.env === undefined)
      .map((side) => [side.label, loadTree(path.dirname(path.dirname(side.script)))]),
  );
  write('intake in one process (no HTTP, no Redis), CPU per delivery, medians of 15 rounds:\n');
  for (const kind of KINDS) {
    const bodies = signedBodies(kind, 5000, SECRET);
    const contentType = kind === 'json' ? 'application/json' : 'application/xml';
    const figures = await intakeCpu(trees, bodies, contentType, 15);
    const text = Object.entries(figures).map(([label, us]) => `${label} ${us.toFixed(2)} µs`);
    write(`  ${kind}: ${text.join(', ')}\n`);
  }
}

interface Side {
  label: string;
  script: string;
  /** More environment for this side's listener (BENCH_SPOOL: SPOOL_DIR). */
  env?: Record<string, string>;
}

/**
 * BENCH_BASELINE first (the reference), then each ref of BENCH_ALSO (comma-separated; the
 * baseline's own ref again is an A/A run: the noise floor of the machine at the time), then the
 * working tree. BENCH_SPOOL=1 adds the working tree with SPOOL_DIR set (Redis up, so the spool
 * stays empty: its cost on the happy path) just before it; with BENCH_BASELINE=HEAD the reference
 * is the same code without the spool, and `now` against it is the A/A. BENCH_TYPICAL=1 (JSON) adds
 * the typical listener just before `now`.
 */
function treesToMeasure(): Side[] {
  const also = (process.env.BENCH_ALSO ?? '').split(',').filter((ref) => ref !== '');
  const sides = [BASELINE, ...also].map((ref, index) => ({
    label: index === 0 ? ref : `${ref} (${String(index)})`,
    script: buildBaseline(ref),
  }));
  const now = builtScript('src/bin/web.ts');
  const spooled =
    process.env.BENCH_SPOOL === '1'
      ? [
          {
            label: 'now, SPOOL_DIR',
            script: now,
            env: { SPOOL_DIR: mkdtempSync(path.join(OUT, 'spool-')) },
          },
        ]
      : [];
  // BENCH_TYPICAL=1 (JSON only): the typical listener profiled as ours is, so the two profiles say
  // where ours spends what it spends beyond it. `env` keeps it out of the in-process intake report.
  const typical =
    process.env.BENCH_TYPICAL === '1'
      ? [
          {
            label: 'typical',
            script: builtScript('bench/servers/typical-listener-server.ts'),
            env: {},
          },
        ]
      : [];
  return [...sides, ...spooled, ...typical, { label: 'now', script: now }];
}

async function measure(
  side: Side,
  redisUrl: string,
  cores: Cores,
  kind: BodyKind,
  bodies: readonly SignedBody[],
  profileFile: string,
): Promise<Measure> {
  const port = await freePort();
  const [command = process.execPath, ...prefix] = [...cores.server, process.execPath];
  const child = spawn(
    command,
    [...prefix, '--require', builtScript('bench/servers/profile-probe.ts'), side.script],
    {
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      env: {
        ...process.env,
        WEBHOOK_SECRET: SECRET,
        REDIS_URL: redisUrl,
        QUEUE_NAME: 'bench-profile',
        LOG_LEVEL: 'info',
        PORT: String(port),
        // No spool unless the side names one: the default (./spool) is this repository's.
        SPOOL_DIR: 'off',
        ...side.env,
      },
    },
  );
  let lines = 0;
  child.stdout?.on('data', (chunk: Buffer) => {
    for (const byte of chunk) if (byte === 10) lines += 1;
  });
  const url = `http://127.0.0.1:${String(port)}`;
  const redis = new Redis(redisUrl);
  try {
    await untilReady(child, `${url}/readyz`);
    const contentType = kind === 'json' ? 'application/json' : 'application/xml';
    await send(`${url}/webhooks`, contentType, bodies.slice(0, WARMUP));
    await redis.config('RESETSTAT');
    await ask(child, { start: true });
    lines = 0;
    await send(`${url}/webhooks`, contentType, bodies.slice(WARMUP));
    const answer = await ask(child, { stop: profileFile });
    const measuredLines = lines;
    const commands = commandCounts(await redis.info('commandstats'), answer.requests ?? 1);
    return {
      cpuUs: (answer.cpuUs ?? 0) / (answer.requests ?? 1),
      deliveries: answer.requests ?? 1,
      commands,
      lines: measuredLines / (answer.requests ?? 1),
      sums: profileSums(profileFile),
    };
  } finally {
    redis.disconnect();
    await stop(child);
  }
}

/** Every body once, CONNECTIONS at a time on keep-alive sockets; any answer but 200 is an error. */
async function send(
  url: string,
  contentType: string,
  bodies: readonly SignedBody[],
): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const one = bodies[next++];
      if (one === undefined) return;
      const status = await post(url, agent, contentType, one);
      if (status !== 200) throw new Error(`${url} answered ${String(status)}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  agent.destroy();
}

function post(url: string, agent: Agent, contentType: string, one: SignedBody): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': contentType, 'x-svc-signature': one.signature },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(one.body);
  });
}

/** `cmdstat_evalsha:calls=12,…` lines → calls per delivery by command (CONFIG and INFO left out). */
interface ProbeAnswer {
  cpuUs?: number;
  requests?: number;
}

function ask(child: ChildProcess, message: object): Promise<ProbeAnswer> {
  return new Promise((resolve) => {
    child.once('message', (answer) => resolve(answer as ProbeAnswer));
    child.send(message);
  });
}

async function untilReady(child: ChildProcess, url: string): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`${url}: server exited with ${String(child.exitCode)}`);
    try {
      const answer = await fetch(url);
      await answer.arrayBuffer();
      if (answer.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 30_000) throw new Error(`${url}: not ready after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function report(kind: BodyKind, sides: Side[], runs: Measure[][]): void {
  const cpu = (measures: Measure[]): number => median(measures.map((one) => one.cpuUs));
  const [before, after] = [runs[0] ?? [], runs.at(-1) ?? []];
  const reference = cpu(before);
  write(
    `\n${kind}: CPU per delivery (median of ${String(ROUNDS)} runs; each run; profiled busy)\n`,
  );
  for (const [index, side] of sides.entries()) {
    const measures = runs[index] ?? [];
    const change = ((cpu(measures) - reference) / reference) * 100;
    write(
      `  ${side.label.padEnd(16)} ${cpu(measures).toFixed(0)} µs (${change >= 0 ? '+' : ''}${change.toFixed(1)} %)` +
        `  ${measures.map((one) => one.cpuUs.toFixed(0)).join(' / ')}; busy ${busy(measures).toFixed(0)} µs\n`,
    );
  }
  const [firstBefore, firstAfter] = [before[0], after[0]];
  if (firstBefore === undefined || firstAfter === undefined) return;
  write(
    `  log lines per delivery ${firstBefore.lines.toFixed(2)} -> ${firstAfter.lines.toFixed(2)}\n`,
  );
  write(
    `  Redis commands per delivery: ${BASELINE} ${commandText(firstBefore)}; now ${commandText(firstAfter)}\n`,
  );
  for (const which of ['self', 'total'] as const) {
    write(`  ${which} time per delivery (µs, all rounds), ${BASELINE} -> now, largest changes:\n`);
    const rows = largestDifferences(
      merged(before, which),
      sumOf(before, (one) => one.deliveries),
      merged(after, which),
      sumOf(after, (one) => one.deliveries),
      TOP,
    );
    for (const row of rows) {
      write(
        `    ${row.beforeUs.toFixed(1).padStart(7)} -> ${row.afterUs.toFixed(1).padStart(7)}  ${row.key}\n`,
      );
    }
  }
}

function busy(runs: Measure[]): number {
  return sumOf(runs, (one) => one.sums.busyUs) / sumOf(runs, (one) => one.deliveries);
}

function merged(runs: Measure[], which: 'self' | 'total'): Map<string, number> {
  const all = new Map<string, number>();
  for (const one of runs)
    for (const [key, us] of one.sums[which]) all.set(key, (all.get(key) ?? 0) + us);
  return all;
}

function sumOf(runs: Measure[], of: (one: Measure) => number): number {
  return runs.reduce((sum, one) => sum + of(one), 0);
}

function commandText(one: Measure): string {
  return [...one.commands].map(([name, calls]) => `${name} ${calls.toFixed(2)}`).join(', ');
}

function loadAverage(): string {
  return loadavg()
    .map((one) => one.toFixed(2))
    .join(' ');
}

function write(text: string): void {
  process.stdout.write(text);
}
