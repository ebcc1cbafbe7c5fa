import { Writable } from 'node:stream';
import { loadConfig, WorkerConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startWorker } from '../../src/worker/start-worker';

/**
 * The worker for the routing benchmark, in its own process, composed as bin/worker.ts does, with
 * ROUTES_FILE from the environment. Log lines are written as in production, to a sink. Prints
 * `ready` once its workers run, and `cpu_us=<n>` (its CPU time since the last ask) on SIGUSR2.
 */
const config = loadConfig(WorkerConfig, process.env);
const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
const logger = createLogger({ level: 'info', name: 'worker', destination: sink });
const running = startWorker({ config, logger });
let since = process.cpuUsage();
process.on('SIGUSR2', () => {
  const cpu = process.cpuUsage(since);
  process.stdout.write(`cpu_us=${String(cpu.user + cpu.system)}\n`);
  since = process.cpuUsage();
});
process.on('SIGTERM', () => {
  void running.close().finally(() => process.exit(0));
});
void running.worker.waitUntilReady().then(() => process.stdout.write('ready\n'));
