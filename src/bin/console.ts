import type { Server } from 'node:http';
import { ConsoleConfig, loadConfig } from '../config';
import { closeServer } from '../http/close-server';
import { createLogger } from '../logger';
import { createConsoleProcess } from '../processes/console-process';
import { runUntilSignal } from '../process/run-until-signal';
import { closeRedis } from '../redis/close-redis';
import { openProducerConnection } from '../redis/open-producer-connection';

/**
 * Composition root of the operator console (`npm run console`): reads env, opens Redis (failing
 * fast while it is away: a page says so rather than hanging), builds the console process and
 * listens on CONSOLE_HOST:CONSOLE_PORT — the loopback by default, never the webhook port.
 */
async function main(): Promise<void> {
  const config = loadConfig(ConsoleConfig, process.env);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'console' });
  const connection = openProducerConnection(config, { commandTimeoutMs: 5000, logger });
  const consoleProcess = createConsoleProcess({ config, logger, connection, env: process.env });
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = consoleProcess.app.listen(
      config.CONSOLE_PORT,
      config.CONSOLE_HOST,
      (error?: Error) => {
        if (error) reject(error);
        else resolve(listening);
      },
    );
  });
  const address = server.address();
  logger.info(
    {
      host: config.CONSOLE_HOST,
      port: typeof address === 'object' && address !== null ? address.port : config.CONSOLE_PORT,
      history: config.DATABASE_URL === undefined ? 'off' : 'on',
      proxySignIn: config.CONSOLE_ROLES_FILE !== undefined,
    },
    'console ready',
  );
  runUntilSignal({
    logger,
    stoppingMessage: 'shutting down: no new connections, finishing requests in flight',
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    steps: [
      { name: 'server', close: () => closeServer(server) },
      { name: 'queues', close: consoleProcess.close, mayFail: true },
      { name: 'redis', close: () => closeRedis(connection), mayFail: true },
    ],
  });
}

main().catch((error: unknown) => {
  // Config and start-up file errors name keys and fields only; nothing secret is in them.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
