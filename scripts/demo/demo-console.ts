import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ConsoleConfig, loadConfig } from '../../src/config';
import { sha256Hex } from '../../src/console';
import type { SqlExecutor } from '../../src/history';
import type { Logger } from '../../src/logger';
import { createConsoleProcess } from '../../src/processes/console-process';
import { closeRedis } from '../../src/redis/close-redis';
import { openProducerConnection } from '../../src/redis/open-producer-connection';

export interface DemoConsoleOptions {
  /** The demo's Redis keys: REDIS_URL, or a cluster's (demo-redis.ts). */
  readonly redisEnv: Readonly<Record<string, string>>;
  readonly queueName: string;
  readonly routesFile: string;
  /** The demo's history (PGlite) and the key its hashes and bodies were made with. */
  readonly historyDb: SqlExecutor;
  readonly historyKey: string;
  /** The demo's temporary folder (outside the repository): the tokens file lives there briefly. */
  readonly dir: string;
  readonly logger: Logger;
}

export interface DemoConsole {
  /** Where to sign in. */
  readonly signInUrl: string;
  /** The operator token of this run: printed once, to paste in the sign-in form. */
  readonly token: string;
  close(): Promise<void>;
}

/**
 * The console of `npm run demo -- --watch`: the real console process on the loopback and a free
 * port, over the demo's Redis, queues, routes and history, with one operator token made for this
 * run. Only the token's SHA-256 reaches disk, in a file of the demo's temporary folder that is
 * removed as soon as the console has read it (it reads its tokens at start-up): the token dies
 * with the process.
 */
export async function startDemoConsole(options: DemoConsoleOptions): Promise<DemoConsole> {
  const token = randomBytes(32).toString('base64url');
  const tokensFile = path.join(options.dir, 'console-tokens.yaml');
  await writeFile(
    tokensFile,
    `tokens:\n  - { name: demo, sha256: "${sha256Hex(token)}", role: operator }\n`,
    { mode: 0o600 },
  );
  const env = {
    ...options.redisEnv,
    QUEUE_NAME: options.queueName,
    ROUTES_FILE: options.routesFile,
    CONSOLE_TOKENS_FILE: tokensFile,
    HISTORY_KEY: options.historyKey,
  };
  const config = loadConfig(ConsoleConfig, env);
  const connection = openProducerConnection(config, { commandTimeoutMs: 5000 });
  let consoleProcess;
  try {
    consoleProcess = createConsoleProcess({
      config,
      logger: options.logger,
      connection,
      env,
      historyDatabase: options.historyDb,
    });
  } catch (error) {
    await closeRedis(connection);
    throw error;
  } finally {
    await rm(tokensFile, { force: true });
  }
  const server: Server = consoleProcess.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const opened = consoleProcess;
  return {
    signInUrl: `http://127.0.0.1:${String(port)}/sign-in`,
    token,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await opened.close();
      await closeRedis(connection);
    },
  };
}
