import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchServer, BenchServerSpec } from './bench-server';
import { freePort } from './free-port';
import { loadServer } from './load-server';
import type { LoadFigures } from './load-server';
import type { SignedBody } from './signed-bodies';

/** The listener as it ships, with a spool of its own in a fresh temporary directory. */
export function withSpool(spec: BenchServerSpec, name: string, queueName: string): BenchServerSpec {
  const dir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  return { ...spec, name, env: { ...spec.env, QUEUE_NAME: queueName, SPOOL_DIR: dir } };
}

/**
 * The listener with a spool while Redis is stopped: REDIS_URL is a loopback port nobody listens
 * on (what a listener sees once Redis is down: connection refused), so every delivery is spooled.
 */
export async function redisDown(spec: BenchServerSpec): Promise<BenchServerSpec> {
  const port = await freePort();
  const spooled = withSpool(spec, 'ours-redis-down', 'bench-redis-down');
  return { ...spooled, env: { ...spooled.env, REDIS_URL: `redis://127.0.0.1:${String(port)}` } };
}

/** Deliveries at full speed against the listener whose Redis is down: every answer should be 200. */
export function loadWithRedisDown(
  server: BenchServer,
  bodies: readonly SignedBody[],
  durationS: number,
): Promise<LoadFigures> {
  return loadServer(server, {
    contentType: 'application/json',
    bodies,
    durationS,
    connections: 50,
  });
}

/** The spool's targets: CPU per delivery with Redis up beside no spool, and throughput with Redis down. */
export function spoolVerdicts(
  off: LoadFigures,
  on: LoadFigures,
  down: LoadFigures,
  write: (text: string) => void,
): void {
  const change = (100 * (on.cpuUs - off.cpuUs)) / off.cpuUs;
  const rows: [string, string, string, boolean][] = [
    [
      'CPU per delivery, spool on vs off (Redis up)',
      `${off.cpuUs.toFixed(0)} -> ${on.cpuUs.toFixed(0)} µs (${change >= 0 ? '+' : ''}${change.toFixed(1)} %)`,
      'within 2 %',
      Math.abs(change) <= 2,
    ],
    ['deliveries/s with Redis down', down.reqPerSec.toFixed(0), '>= 2000', down.reqPerSec >= 2000],
    ['p99 with Redis down, ms', String(down.p99), '< 50', down.p99 < 50],
    [
      'non-2xx with Redis down',
      String(down.non2xx + down.errors),
      '0',
      down.non2xx + down.errors === 0,
    ],
  ];
  write('\nthe spool (SPOOL_DIR)\n');
  for (const [label, value, target, ok] of rows) {
    write(
      `  ${label.padEnd(46)} ${value.padStart(22)}   target ${target.padEnd(10)} ${ok ? 'met' : 'NOT MET'}\n`,
    );
  }
}
