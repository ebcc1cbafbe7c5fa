import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import request from 'supertest';
import { runCli } from '../../../src/cli/run-cli';
import { ConsoleConfig, WorkerConfig, loadConfig } from '../../../src/config';
import { sha256Hex } from '../../../src/console';
import { createEventEnqueuer } from '../../../src/events/enqueue-event';
import { historyStreamKey } from '../../../src/history';
import { openHistoryDatabase } from '../../../src/history/open-history-database';
import { createConsoleProcess } from '../../../src/processes/console-process';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { captureIo } from '../../component/cli/cli-io-capture';
import { eventually, routeEvent, silentLogger } from '../../component/routes/support/route-events';
import { captureLogger } from '../../helpers/capture-logger';
import {
  TEST_DATABASE_URL,
  dropSchema,
  dumpSchemaText,
  uniqueSchema,
} from '../../helpers/history-database';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startStoppableProxy } from '../../helpers/stoppable-proxy';
import type { StoppableProxy } from '../../helpers/stoppable-proxy';

/** The secrets `${VAR}` puts into the route: a URL path, a query and a header value. */
const SECRETS = {
  CHAT_TOKEN: `chat-${randomBytes(12).toString('hex')}`,
  CHAT_KEY: `key-${randomBytes(12).toString('hex')}`,
  CHAT_BEARER: `bearer-${randomBytes(12).toString('hex')}`,
};
const OPERATOR = 'operator-token-for-route-secrets';
const VIEWER = 'viewer-token-for-route-secrets';

/** docs/routing.md's chat recipe, with a query and a header from the environment as well. */
function routesYaml(port: number): string {
  return (
    'routes:\n  - name: chat\n    match: { action: [loan] }\n' +
    `    to: { http: { url: "http://127.0.0.1:${String(port)}/hooks/\${CHAT_TOKEN}?key=\${CHAT_KEY}",` +
    ' headers: { authorization: "Bearer ${CHAT_BEARER}" }, timeoutMs: 2000 } }\n' +
    '    retry: { attempts: 2, backoffMs: 50 }\n    circuit: off\n'
  );
}

/** A chat receiver that answers 500 until told to take deliveries; what it took, by path. */
async function startChatReceiver(): Promise<{
  port: number;
  accept: () => void;
  taken: string[];
  close: () => Promise<void>;
}> {
  let accepting = false;
  const taken: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (!accepting) return void res.writeHead(500).end();
      taken.push(req.url ?? '');
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    accept: () => {
      accepting = true;
    },
    taken,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Every key of the deployment's queues (route queue, figures, failed jobs, outbox) as text. */
async function redisText(redis: Redis, queueName: string): Promise<string> {
  const parts: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `*${queueName}*`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) parts.push(`${key}: ${await valueText(redis, key)}`);
  } while (cursor !== '0');
  return parts.join('\n');
}

async function valueText(redis: Redis, key: string): Promise<string> {
  const type = await redis.type(key);
  if (type === 'string') return (await redis.get(key)) ?? '';
  if (type === 'hash') return JSON.stringify(await redis.hgetall(key));
  if (type === 'list') return JSON.stringify(await redis.lrange(key, 0, -1));
  if (type === 'set') return JSON.stringify(await redis.smembers(key));
  if (type === 'zset') return JSON.stringify(await redis.zrange(key, 0, -1));
  if (type === 'stream') return JSON.stringify(await redis.xrange(key, '-', '+'));
  return type;
}

/** How often any of the secrets appears in `text`, per secret. */
function appearances(text: string): Record<string, number> {
  return Object.fromEntries(
    Object.entries(SECRETS).map(([name, value]) => [name, text.split(value).length - 1]),
  );
}
const NONE = { CHAT_TOKEN: 0, CHAT_KEY: 0, CHAT_BEARER: 0 };

describe('a value substituted from the environment into the routes file is never shown', () => {
  let dir: string;
  let queueName: string;
  let schema: string;
  let redis: Redis;
  let proxy: StoppableProxy;
  let receiver: Awaited<ReturnType<typeof startChatReceiver>>;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-route-secrets-'));
    queueName = uniqueQueueName('route-secrets');
    schema = uniqueSchema('rs');
    redis = new Redis(TEST_REDIS_URL);
    receiver = await startChatReceiver();
    proxy = await startStoppableProxy({ host: '127.0.0.1', port: receiver.port });
    await writeFile(join(dir, 'routes.yaml'), routesYaml(proxy.port));
    await writeFile(
      join(dir, 'tokens.yaml'),
      `tokens:\n  - { name: ops, sha256: ${sha256Hex(OPERATOR)}, role: operator }\n` +
        `  - { name: reader, sha256: ${sha256Hex(VIEWER)}, role: viewer }\n`,
    );
  });
  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await proxy.close();
    await receiver.close();
    await obliterateQueue(queueName);
    await obliterateQueue(routeQueueName(queueName, 'chat'));
    await redis.del(historyStreamKey(queueName), `${historyStreamKey(queueName)}:records`);
    redis.disconnect();
    await dropSchema(schema);
    await rm(dir, { recursive: true, force: true });
  });

  const env = (): Record<string, string> => ({
    ...SECRETS,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_NAME: queueName,
    ROUTES_FILE: join(dir, 'routes.yaml'),
    CONSOLE_TOKENS_FILE: join(dir, 'tokens.yaml'),
  });

  it('masks them in log lines, the history, Redis, the console, the API and the CLI', async () => {
    const log = captureLogger();
    const queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    closers.push(() => queue.close());
    await startWorker(log.logger);
    const routeQueue = new Queue(routeQueueName(queueName, 'chat'), {
      connection: { url: TEST_REDIS_URL },
    });
    closers.push(() => routeQueue.close());
    const enqueue = createEventEnqueuer({ queue, dedupWindowHours: 1, attempts: 3 });

    // Refused (500), then the port closed (ECONNREFUSED): each fails into the failed set.
    await enqueue(routeEvent());
    await eventually(async () => (await routeQueue.getFailedCount()) === 1, 'refused', 20_000);
    await proxy.stop();
    await enqueue(routeEvent());
    await eventually(async () => (await routeQueue.getFailedCount()) === 2, 'no port', 20_000);
    // Back, and taking deliveries: delivered to the URL the secrets made.
    await proxy.start();
    receiver.accept();
    await enqueue(routeEvent());
    await eventually(() => receiver.taken.length === 1, 'delivered', 20_000);
    expect(receiver.taken[0]).toBe(`/hooks/${SECRETS.CHAT_TOKEN}?key=${SECRETS.CHAT_KEY}`);

    const history = await historyText(5);
    const figures = `${routeQueue.toKey('figures')}:failures`;
    await eventually(async () => (await redis.llen(figures)) === 4, 'the figures of 4 failures');
    const shown = {
      logs: log.text(),
      history,
      redis: await redisText(redis, queueName),
      ...(await consoleTexts()),
      ...(await cliTexts()),
    };

    const places = Object.entries(shown);
    expect(Object.fromEntries(places.map(([where, text]) => [where, appearances(text)]))).toEqual(
      Object.fromEntries(places.map(([where]) => [where, NONE])),
    );
    const masked = places.filter(([, text]) => text.includes('/hooks/***?key=***'));
    expect(masked.map(([where]) => where)).toEqual(places.map(([where]) => where));
    // What the masked text says is still read: the target, and why each attempt failed.
    expect(shown.logs).toContain(
      `"target":"POST http://127.0.0.1:${String(proxy.port)}/hooks/***?key=***"`,
    );
    expect(shown.history).toContain('/hooks/***?key=***: HTTP 500');
    expect(shown.history).toContain('/hooks/***?key=***: ECONNREFUSED');
    expect(shown.cliTest).toContain('authorization: Bearer ***');
  });

  async function startWorker(logger: ReturnType<typeof captureLogger>['logger']): Promise<void> {
    const config = loadConfig(WorkerConfig, {
      ...env(),
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_API_KEY: 'unused',
      RECORDS_DIR: join(dir, 'records'),
      DATABASE_URL: TEST_DATABASE_URL,
      HISTORY_KEY: 'k'.repeat(40),
      HISTORY_SCHEMA: schema,
    });
    const connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    const running = createWorkerProcess({
      config,
      logger,
      connection,
      env: env(),
      historyOptions: { openRetryMs: 100, writer: { retryMs: 100, blockMs: 100 } },
    });
    closers.push(async () => {
      await running.close();
      await closeRedis(connection);
    });
    await running.startedUp;
  }

  /** Every row of the history once its `attempts` attempts are written. */
  async function historyText(attempts: number): Promise<string> {
    const db = await openHistoryDatabase({ url: TEST_DATABASE_URL, schema, migrate: false });
    if (db === undefined) throw new Error('no history database');
    try {
      // The worker migrates its history in the background: until it has, there is no table yet.
      await eventually(
        async () =>
          (
            await db
              .query<{ n: number }>('SELECT count(*)::int AS n FROM attempts')
              .catch(() => ({ rows: [] }))
          ).rows[0]?.n === attempts,
        `${String(attempts)} attempts in the history`,
        20_000,
      );
      return await dumpSchemaText(db);
    } finally {
      await db.close();
    }
  }

  async function consoleTexts(): Promise<Record<string, string>> {
    const connection = new Redis(TEST_REDIS_URL);
    const consoleProcess = createConsoleProcess({
      config: loadConfig(ConsoleConfig, env()),
      logger: silentLogger,
      connection,
      env: env(),
    });
    try {
      const get = async (path: string, token: string): Promise<string> => {
        const answer = await request(consoleProcess.app)
          .get(path)
          .set('Authorization', `Bearer ${token}`);
        expect({ path, status: answer.status }).toEqual({ path, status: 200 });
        return answer.text;
      };
      return {
        pageOperator: await get('/routes', OPERATOR),
        pageViewer: await get('/routes', VIEWER),
        apiOperator: await get('/api/v1/routes', OPERATOR),
        apiViewer: await get('/api/v1/routes', VIEWER),
      };
    } finally {
      await consoleProcess.close();
      connection.disconnect();
    }
  }

  async function cliTexts(): Promise<{ cliList: string; cliJson: string; cliTest: string }> {
    const run = async (...argv: string[]): Promise<string> => {
      const io = captureIo(env());
      const status = await runCli(argv, io);
      expect({ argv, status }).toEqual({ argv, status: 0 });
      return `${io.stdout()}\n${io.stderr()}`;
    };
    return {
      cliList: await run('routes'),
      cliJson: await run('routes', '--json'),
      cliTest: await run('routes', 'test', 'chat', '--sample', 'loan'),
    };
  }
});
