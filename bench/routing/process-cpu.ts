import { readdirSync, readFileSync } from 'node:fs';

export interface CpuProbe {
  /** Each process's CPU time (user + system) since the probe was made or last asked, µs. */
  since(): Map<string, number>;
}

/**
 * CPU time of the processes on the path, read from /proc (user + system): the given children,
 * the Redis servers listening on `redisPorts` (one, or a cluster's nodes: summed as `redis`), the
 * bench's RabbitMQ VM (`isBroker`), and this process (the load generator and the destinations'
 * watchers). Linux only; a process not found is left out.
 */
export function cpuProbe(
  children: ReadonlyMap<string, number | undefined>,
  redisPorts: readonly string[],
  isBroker: (commandLine: string) => boolean,
): CpuProbe {
  const pids = new Map<string, number[]>();
  for (const [name, pid] of children) if (pid !== undefined) pids.set(name, [pid]);
  const redis = redisPorts.flatMap((port) => {
    // `redis-server 127.0.0.1:<port>`, or the binary's full path when a private server found it.
    const pid = findPid((cmd) => /^(\S*\/)?redis-server /.test(cmd) && cmd.includes(`:${port}`));
    return pid === undefined ? [] : [pid];
  });
  if (redis.length > 0) pids.set('redis', redis);
  const rabbit = findPid(isBroker);
  if (rabbit !== undefined) pids.set('rabbitmq', [rabbit]);
  const ticks = 10_000; // µs per clock tick at the usual USER_HZ of 100
  const read = (): Map<string, number> => {
    const now = new Map<string, number>();
    for (const [name, each] of pids) {
      now.set(name, each.reduce((sum, pid) => sum + cpuTicksOf(pid), 0) * ticks);
    }
    const own = process.cpuUsage();
    now.set('load generator', own.user + own.system);
    return now;
  };
  let before = read();
  return {
    since: () => {
      const after = read();
      const spent = new Map([...after].map(([name, us]) => [name, us - (before.get(name) ?? 0)]));
      before = after;
      return spent;
    },
  };
}

function findPid(matches: (cmdline: string) => boolean): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (matches(cmdline)) return Number(entry);
    } catch {
      // The process ended while the list was read.
    }
  }
  return undefined;
}

/** utime + stime of a process, in clock ticks (fields 14 and 15 of /proc/<pid>/stat). */
function cpuTicksOf(pid: number): number {
  const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Load average over the last minute, as /proc/loadavg says. */
export function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ')[0] ?? '?';
}
