import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { CanonicalEvent } from '../../src/events/canonical-event';
import { ConsoleConfig, loadConfig } from '../../src/config';
import { sha256Hex } from '../../src/console';
import { createHistoryRecorder } from '../../src/history/create-history-recorder';
import type { HistoryRecorder } from '../../src/history/create-history-recorder';
import { createHistoryWriter } from '../../src/history/create-history-writer';
import { openHistoryDatabase } from '../../src/history/open-history-database';
import type { SqlExecutor } from '../../src/history/sql-executor';
import { createLogger } from '../../src/logger';
import type { Logger } from '../../src/logger';
import { createConsoleProcess } from '../../src/processes/console-process';
import { routeQueueName } from '../../src/routes/route-queue-name';
import { TEST_DATABASE_URL, openTestHistory } from './history-database';
import { TEST_HISTORY_KEY } from './history-events';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from './redis';

export const HISTORY_CONSOLE_TOKENS = {
  operator: 'operator-token-for-the-history-console',
  viewer: 'viewer-token-for-the-history-console',
  scoped: 'inst-b-operator-token-for-history-console',
};

/** A destination no test reaches (port 9, discard): the console only queues. */
const UNREACHABLE = '{ http: { url: "http://127.0.0.1:9/hook", timeoutMs: 2000 } }';

export interface ConsoleWithHistory {
  readonly url: string;
  readonly queueName: string;
  /** The PostgreSQL schema the history lives in. */
  readonly schema: string;
  readonly redis: Redis;
  /** Records the events (and what `more` adds) through the history's outbox and writes them. */
  record(
    events: readonly CanonicalEvent[],
    more?: (r: HistoryRecorder) => Promise<unknown>,
  ): Promise<void>;
  /** The recorder `record` uses (routing's attempts), onto the history's outbox. */
  readonly recorder: HistoryRecorder;
  /** Writes what the outbox holds into the history. */
  drainHistory(): Promise<void>;
  /** The environment a CLI command over the same history, Redis and routes runs with. */
  cliEnv(): Record<string, string>;
  close(): Promise<void>;
}

/**
 * The console process over real Redis and a history of its own schema on the test PostgreSQL,
 * one route `loans`, and three tokens: an operator, a viewer, an INST_B-only operator.
 */
export async function startConsoleWithHistory(
  options: {
    replayRatePerSecond?: number;
    /** An existing history (a restored backup) instead of a new schema; left in place on close. */
    existing?: { url: string; schema: string };
    /** The `loans` route's `to:` and what follows it (default: an unreachable http URL). */
    loansTo?: string;
    /** More of the console's keys (a proxy's, a cap), over the ones set here. */
    env?: Readonly<Record<string, string>>;
    /** More routes after `loans`: each one's name, `match:` and `to:` (an unreachable http URL by default). */
    moreRoutes?: readonly { readonly name: string; readonly match: string; readonly to?: string }[];
    /** The console's logger (silent unless given: a test that reads its lines gives one). */
    logger?: Logger;
  } = {},
): Promise<ConsoleWithHistory> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-console-history-'));
  const redis = new Redis(TEST_REDIS_URL);
  const queueName = uniqueQueueName('console-history');
  const streamKey = `${queueName}:history`;
  const history =
    options.existing === undefined
      ? await openTestHistory('console')
      : await openExistingHistory(options.existing);
  const tokens = HISTORY_CONSOLE_TOKENS;
  await writeFile(
    join(dir, 'routes.yaml'),
    'routes:\n  - name: loans\n    match: { action: [loan] }\n' +
      `    to: ${options.loansTo ?? UNREACHABLE}\n` +
      (options.moreRoutes ?? [])
        .map(
          ({ name, match, to = UNREACHABLE }) =>
            `  - name: ${name}\n    match: ${match}\n    to: ${to}\n`,
        )
        .join(''),
  );
  await writeFile(
    join(dir, 'tokens.yaml'),
    'tokens:\n' +
      `  - { name: ops, sha256: ${sha256Hex(tokens.operator)}, role: operator }\n` +
      `  - { name: reader, sha256: ${sha256Hex(tokens.viewer)}, role: viewer }\n` +
      `  - { name: inst-b-ops, sha256: ${sha256Hex(tokens.scoped)}, role: operator, institution: INST_B }\n`,
  );
  const env = {
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_NAME: queueName,
    ROUTES_FILE: join(dir, 'routes.yaml'),
    CONSOLE_TOKENS_FILE: join(dir, 'tokens.yaml'),
    DATABASE_URL: options.existing?.url ?? TEST_DATABASE_URL,
    HISTORY_KEY: TEST_HISTORY_KEY,
    HISTORY_SCHEMA: history.schema,
    ...options.env,
  };
  const consoleProcess = createConsoleProcess({
    config: loadConfig(ConsoleConfig, env),
    logger: options.logger ?? createLogger({ level: 'silent', name: 'test' }),
    connection: redis,
    env,
    replayRatePerSecond: options.replayRatePerSecond,
  });
  const server = createServer(consoleProcess.app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const recorder = createHistoryRecorder({
    redis,
    streamKey,
    historyKey: TEST_HISTORY_KEY,
    bodies: 'all',
    maxBacklog: 10_000,
  });
  const drainHistory = async () => {
    const writer = createHistoryWriter({ redis, db: history.db, streamKey });
    while ((await writer.drainOnce()) > 0);
  };
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    queueName,
    schema: history.schema,
    redis,
    recorder,
    drainHistory,
    cliEnv: () => ({
      DATABASE_URL: env.DATABASE_URL,
      HISTORY_KEY: TEST_HISTORY_KEY,
      HISTORY_SCHEMA: history.schema,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: queueName,
      ROUTES_FILE: env.ROUTES_FILE,
    }),
    record: async (events, more) => {
      for (const event of events) await recorder.event(event);
      await more?.(recorder);
      await drainHistory();
    },
    close: async () => {
      server.close();
      await consoleProcess.close();
      await redis.del(streamKey);
      for (const name of ['loans', ...(options.moreRoutes ?? []).map((one) => one.name)]) {
        await obliterateQueue(routeQueueName(queueName, name));
      }
      await obliterateQueue(queueName);
      redis.disconnect();
      await history.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function openExistingHistory(existing: {
  url: string;
  schema: string;
}): Promise<{ db: SqlExecutor; schema: string; close: () => Promise<void> }> {
  const db = await openHistoryDatabase(existing);
  if (db === undefined) throw new Error('no history database');
  return { db, schema: existing.schema, close: () => db.close() };
}
