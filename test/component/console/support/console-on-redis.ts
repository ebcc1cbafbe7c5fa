import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisClient } from '../../../../src/redis/redis-client';
import { ConsoleConfig, loadConfig } from '../../../../src/config';
import { sha256Hex } from '../../../../src/console';
import { createConsoleProcess } from '../../../../src/processes/console-process';
import type { ConsoleProcess } from '../../../../src/processes/console-process';
import { closeRedis } from '../../../../src/redis/close-redis';
import { openProducerConnection } from '../../../../src/redis/open-producer-connection';
import { captureLogger } from '../../../helpers/capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../../helpers/redis';

export interface ConsoleOnRedis {
  /** A folder of the test's own (the tokens file, and any file the test writes). */
  readonly dir: string;
  /** The console's environment: QUEUE_NAME (its own), REDIS_URL, CONSOLE_TOKENS_FILE, more. */
  readonly env: Record<string, string>;
  readonly queueName: string;
  readonly connection: RedisClient;
  readonly consoleProcess: ConsoleProcess;
  /** Closes the console and its connection, empties the queue and removes the folder. */
  close(): Promise<void>;
}

/**
 * The console process as bin/console.ts builds it, on the tests' private Redis, with a tokens
 * file of the given bearer tokens and its own queue; `env` adds to its environment (given the
 * folder, for files in it).
 */
export async function startConsoleOnRedis(options: {
  readonly name: string;
  readonly tokens: readonly { name: string; token: string; role: 'operator' | 'viewer' }[];
  readonly env?: (dir: string) => Record<string, string>;
}): Promise<ConsoleOnRedis> {
  const dir = await mkdtemp(join(tmpdir(), `svc-${options.name}-`));
  const queueName = uniqueQueueName(options.name);
  const entries = options.tokens.map(
    (one) => `  - { name: ${one.name}, sha256: ${sha256Hex(one.token)}, role: ${one.role} }\n`,
  );
  await writeFile(join(dir, 'tokens.yaml'), `tokens:\n${entries.join('')}`);
  const env = {
    QUEUE_NAME: queueName,
    REDIS_URL: TEST_REDIS_URL,
    CONSOLE_TOKENS_FILE: join(dir, 'tokens.yaml'),
    ...options.env?.(dir),
  };
  const connection = openProducerConnection(TEST_REDIS_URL);
  const consoleProcess = createConsoleProcess({
    config: loadConfig(ConsoleConfig, env),
    logger: captureLogger().logger,
    connection,
    env,
  });
  if (connection.status !== 'ready') await once(connection, 'ready');
  return {
    dir,
    env,
    queueName,
    connection,
    consoleProcess,
    close: async () => {
      await consoleProcess.close();
      await obliterateQueue(queueName);
      await closeRedis(connection);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
