// First: with tracing on, its instrumentations must hook http, express and ioredis before they load.
import { tracing } from './listener-tracing';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenerSpoolDir, loadConfig, WebConfig } from '../config';
import type { ListenerSpoolDir } from '../config';
import { createLogger } from '../logger';
import { runUntilSignal } from '../process/run-until-signal';
import { closeRedis } from '../redis/close-redis';
import { openProducerConnection } from '../redis/open-producer-connection';
import { closeServer } from '../http/close-server';
import { configureServer } from '../http/configure-server';
import { createListenerProcess } from '../processes/listener-process';
import type { ListenerProcess } from '../processes/listener-process';
import { enqueueBoundMs } from '../events/enqueue-bound-ms';
import { listenerReadyFields } from '../processes/listener-ready-fields';
import type { Logger } from '../logger';
import type { RedisClient } from '../redis/redis-client';

/**
 * Composition root of the listener: reads env, opens Redis, builds the process
 * (src/processes/listener-process.ts), listens, handles signals.
 */
async function main(): Promise<void> {
  const loaded = loadConfig(WebConfig, process.env);
  const spool = listenerSpoolDir(loaded.SPOOL_DIR, process.env, process.cwd());
  const config: WebConfig = { ...loaded, SPOOL_DIR: spool.dir };
  const logger = createLogger({
    level: config.LOG_LEVEL,
    name: 'web',
    buffered: true,
    mixin: tracing.logFields,
  });
  logSpool(logger, spool);
  // With REDIS_ACK_REPLICAS a delivery also waits for WAIT: the connection's commands are bounded
  // as the whole enqueue is.
  const connection = openProducerConnection(config, {
    commandTimeoutMs: enqueueBoundMs(config),
    logger,
  });
  const listener = createListenerProcess({
    config,
    logger,
    connection,
    env: process.env,
    telemetry: tracing.telemetry,
  });

  // What a previous process spooled goes into the queue first (if Redis answers), then new deliveries.
  await listener.drainSpool();
  const server = configureServer(listener.app.listen(config.PORT, config.HOST), config);
  await once(server, 'listening');
  await listener.listenMetrics();
  const { port, address } = server.address() as AddressInfo;
  logger.info(
    listenerReadyFields(config, listener, { port, host: address, tracing: tracing.enabled }),
    'listener ready',
  );
  stopOnSignal({ config, logger, server, connection, listener });
}

/** The one start-up line that says where the listener spools, or that it does not. */
function logSpool(logger: Logger, spool: ListenerSpoolDir): void {
  if (spool.dir === undefined) {
    logger.warn(
      { spool: null, from: spool.from },
      'no spool (SPOOL_DIR=off): a delivery the queue does not take is answered 503',
    );
    return;
  }
  logger.info(
    { spool: spool.dir, from: spool.from },
    'spooling deliveries the queue does not take',
  );
}

/** SIGTERM/SIGINT: finish requests in flight, then close the queues and Redis. */
function stopOnSignal(options: {
  config: WebConfig;
  logger: Logger;
  server: Server;
  connection: RedisClient;
  listener: ListenerProcess;
}): void {
  const { config, logger, server, connection, listener } = options;
  runUntilSignal({
    logger,
    stoppingMessage: 'shutting down: no new connections, finishing requests in flight',
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    deadlineMessage: 'shutdown deadline passed; exiting',
    steps: [
      { name: 'server', close: () => closeServer(server) },
      // Requests are answered by now: a queue that cannot close loses nothing.
      { name: 'queue', close: listener.close, mayFail: true },
      { name: 'redis', close: () => closeRedis(connection), mayFail: true },
      // Last: the spans of the requests finished above are flushed to the collector.
      { name: 'tracing', close: tracing.shutdown, mayFail: true },
    ],
  });
}

main().catch((error: unknown) => {
  // Config errors name keys only; nothing secret is in them.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
