import { Writable } from 'node:stream';
import { loadConfig, WorkerConfig } from '../../src/config';
import { closeRedis } from '../../src/redis/close-redis';
import { createLogger } from '../../src/logger';
import { openWorkerConnection } from '../../src/redis/open-worker-connection';
import { createWorkerProcess } from '../../src/processes/worker-process';

/**
 * The worker for the routing benchmark, in its own process, composed as bin/worker.ts does, with
 * ROUTES_FILE from the environment. Log lines are written as in production, to a sink. Prints
 * `ready` once its workers run, and `cpu_us=<n>` (its CPU time since the last ask) on SIGUSR2.
 */
const config = loadConfig(WorkerConfig, process.env);
const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
const logger = createLogger({ level: 'info', name: 'worker', destination: sink });
const connection = openWorkerConnection(config, logger);
const running = createWorkerProcess({ config, logger, connection, env: process.env });
let since = process.cpuUsage();
process.on('SIGUSR2', () => {
  const cpu = process.cpuUsage(since);
  process.stdout.write(`cpu_us=${String(cpu.user + cpu.system)}\n`);
  since = process.cpuUsage();
});
process.on('SIGTERM', () => {
  void running
    .close()
    .then(() => closeRedis(connection))
    .finally(() => process.exit(0));
});
void running.worker.waitUntilReady().then(() => process.stdout.write('ready\n'));
