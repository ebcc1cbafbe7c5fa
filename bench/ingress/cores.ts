import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * Which cores the ingress bench pins to: the server under load on one core, the load generator and
 * Redis on another, so the server's figures are its own. Pinning needs `taskset` and two cores;
 * without them everything shares the machine, as said in the bench's header line.
 */
export interface Cores {
  /** Prefix for a command that runs on the server's core, or [] when not pinning. */
  readonly server: readonly string[];
  /** Prefix for a command that runs on the load's core (Redis), or []. */
  readonly load: readonly string[];
  readonly description: string;
}

/** Nothing pinned: for a bench whose figures are the whole machine's (routing, history, console). */
export const NOT_PINNED: Cores = { server: [], load: [], description: 'not pinned' };

export function benchCores(): Cores {
  const cpus = availableParallelism();
  if (cpus < 2 || !hasTaskset() || process.env.BENCH_PIN === '0') {
    return {
      server: [],
      load: [],
      description: 'not pinned (no taskset, one core or BENCH_PIN=0)',
    };
  }
  const serverCore = String(cpus - 2);
  const loadCore = String(cpus - 1);
  // The bench process itself runs autocannon: pin it to the load's core.
  execFileSync('taskset', ['-cp', loadCore, String(process.pid)], { stdio: 'ignore' });
  return {
    server: ['taskset', '-c', serverCore],
    load: ['taskset', '-c', loadCore],
    description: `server pinned to core ${serverCore}, load generator and Redis to core ${loadCore}`,
  };
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
