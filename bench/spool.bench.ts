import { loadavg } from 'node:os';
import { startBenchServer } from './ingress/bench-server';
import type { BenchServerSpec } from './ingress/bench-server';
import { buildServers } from './ingress/build-servers';
import { benchCores } from './ingress/cores';
import { loadServer } from './ingress/load-server';
import type { LoadFigures } from './ingress/load-server';
import { median } from './ingress/median';
import { benchRedis } from './ingress/private-redis';
import { signedBodies } from './ingress/signed-bodies';
import { loadWithRedisDown, redisDown, spoolVerdicts, withSpool } from './ingress/spool-cases';

const SECRET = 'bench-secret-of-the-spool';
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

/**
 * The spool alone (`npm run bench -- spool`), quicker than the listener bench that measures it
 * too: the listener with and without SPOOL_DIR, Redis up, loaded in turn (medians of
 * BENCH_ROUNDS); then the listener with a spool and Redis down, at full speed.
 */
export async function run(): Promise<void> {
  buildServers();
  const cores = benchCores();
  const redis = await benchRedis(cores);
  const base: BenchServerSpec = {
    name: 'ours',
    script: 'src/bin/web.ts',
    env: {
      WEBHOOK_SECRET: SECRET,
      REDIS_URL: redis.url,
      QUEUE_NAME: 'bench-ours',
      LOG_LEVEL: 'info',
    },
    readyPath: '/readyz',
  };
  write(`${cores.description}; load average at start ${loadAverage()}\n`);
  const off = await startBenchServer(base, cores);
  const on = await startBenchServer(withSpool(base, 'ours-spool', 'bench-spool'), cores);
  const down = await startBenchServer(await redisDown(base), cores);
  try {
    const bodies = signedBodies('json', 60000, SECRET);
    const load = (server: typeof off): Promise<LoadFigures> =>
      loadServer(server, {
        contentType: 'application/json',
        bodies,
        durationS: DURATION_S,
        connections: 50,
      });
    await load(off);
    await load(on);
    await redis.flush();
    const offRuns: LoadFigures[] = [];
    const onRuns: LoadFigures[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const [server, runs] of [
        [off, offRuns],
        [on, onRuns],
      ] as const) {
        const figures = await load(server);
        runs.push(figures);
        await redis.flush();
        write(
          `round ${round}  ${server.name.padEnd(12)} cpu ${figures.cpuUs.toFixed(0)} µs  ${figures.reqPerSec.toFixed(0)} req/s  p99 ${figures.p99} ms  non-2xx ${figures.non2xx + figures.errors}\n`,
        );
      }
    }
    await loadWithRedisDown(down, bodies, 2);
    const downFigures = await loadWithRedisDown(down, bodies, DURATION_S * 2);
    spoolVerdicts(medianOf(offRuns), medianOf(onRuns), downFigures, write);
  } finally {
    await Promise.all([off.stop(), on.stop(), down.stop()]);
    await redis.stop();
  }
  write(`load average at the end ${loadAverage()}\n`);
}

function medianOf(runs: readonly LoadFigures[]): LoadFigures {
  const of = (pick: (figures: LoadFigures) => number): number => median(runs.map(pick));
  return {
    cpuUs: of((f) => f.cpuUs),
    reqPerSec: of((f) => f.reqPerSec),
    p50: of((f) => f.p50),
    p99: of((f) => f.p99),
    non2xx: runs.reduce((sum, f) => sum + f.non2xx, 0),
    errors: runs.reduce((sum, f) => sum + f.errors, 0),
    repeated: 0,
    maxRssBytes: 0,
  };
}

function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

function write(text: string): void {
  process.stdout.write(text);
}
