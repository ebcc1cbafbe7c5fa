import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, Worker } from 'bullmq';
import request from 'supertest';
import { ConsoleConfig, loadConfig } from '../../../src/config';
import { sha256Hex } from '../../../src/console';
import { createConsoleProcess } from '../../../src/processes/console-process';
import type { ConsoleProcess } from '../../../src/processes/console-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { openProducerConnection } from '../../../src/redis/open-producer-connection';
import { captureLogger } from '../../helpers/capture-logger';
import { startStoppableProxy } from '../../helpers/stoppable-proxy';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { hostAndPort } from '../../helpers/test-services';

const OPERATOR = 'operator-token-of-the-api-test';
const VIEWER = 'viewer-token-of-the-api-test';

describe('the console API without history', () => {
  let dir: string;
  let queueName: string;
  let connection: ReturnType<typeof openProducerConnection>;
  let consoleProcess: ConsoleProcess;
  const log = captureLogger();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-console-api-'));
    queueName = uniqueQueueName('console-api');
    await writeFile(
      join(dir, 'tokens.yaml'),
      `tokens:\n  - { name: ops, sha256: ${sha256Hex(OPERATOR)}, role: operator }\n` +
        `  - { name: reader, sha256: ${sha256Hex(VIEWER)}, role: viewer }\n`,
    );
    await writeFile(
      join(dir, 'routes.yaml'),
      'routes:\n  - name: loans\n    to: { http: { url: "https://user:s3cret@example.org/hook" } }\n',
    );
    const env = {
      QUEUE_NAME: queueName,
      CONSOLE_TOKENS_FILE: join(dir, 'tokens.yaml'),
      ROUTES_FILE: join(dir, 'routes.yaml'),
    };
    connection = openProducerConnection(TEST_REDIS_URL);
    consoleProcess = createConsoleProcess({
      config: loadConfig(ConsoleConfig, env),
      logger: log.logger,
      connection,
      env,
    });
  });
  afterAll(async () => {
    await consoleProcess.close();
    await closeRedis(connection);
    await obliterateQueue(queueName);
    await obliterateQueue(`${queueName}-route-loans`);
    await rm(dir, { recursive: true, force: true });
  });

  const api = () => request(consoleProcess.app);
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  it('answers /healthz and /readyz without a token, for a container health check', async () => {
    const health = await api().get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    if (connection.status !== 'ready') await once(connection, 'ready');
    const ready = await api().get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('answers 401 to an unsigned call and to an unknown token', async () => {
    const unsigned = await api().get('/api/v1/overview');
    expect(unsigned.status).toBe(401);
    expect(unsigned.body).toEqual({ error: 'unsigned', message: expect.any(String) as string });
    expect((await api().get('/api/v1/routes').set(bearer('not-a-token'))).status).toBe(401);
  });

  it('answers 404 for a route that does not exist and 400 naming the field of a bad body', async () => {
    const missing = await api().post('/api/v1/routes/nope/pause').set(bearer(OPERATOR));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'not_found', message: 'no route nope' });
    const bad = await api()
      .post('/api/v1/routes/loans/replay')
      .set(bearer(OPERATOR))
      .send({ jobId: 7 });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^body\.jobId: /);
  });

  it('shows the failed deliveries its route queue keeps, beside the attempts of the hour', async () => {
    const name = routeQueueName(queueName, 'loans');
    const queue = new Queue(name, { connection: { url: TEST_REDIS_URL } });
    await queue.addBulk(
      ['ok-1', 'fails'].map((id) => ({ name: 'loan', data: { id }, opts: { jobId: id } })),
    );
    let finished = 0;
    const worker = new Worker(
      name,
      async (job) => {
        if (job.id === 'fails') throw new Error('HTTP 500 from the destination');
      },
      { connection: { url: TEST_REDIS_URL, maxRetriesPerRequest: null }, concurrency: 1 },
    );
    await new Promise<void>((resolve) => {
      const one = () => (finished += 1) === 2 && resolve();
      worker.on('completed', one);
      worker.on('failed', one);
    });
    await worker.close();
    await queue.close();

    const answer = await api().get('/api/v1/overview').set(bearer(VIEWER));

    expect(answer.status).toBe(200);
    // The attempts of the hour are those the route's delivery counted (route-figures.ts): a
    // bare BullMQ worker made none, so the figures stay empty while the queue keeps its failure.
    expect(answer.body.routes[0]).toMatchObject({
      route: 'loans',
      state: 'running',
      failing: null,
      failed: 1,
      deliveredLastHour: 0,
      lastResult: null,
    });
  });

  it('answers the history calls with 503 history_off', async () => {
    for (const path of ['/api/v1/events', '/api/v1/events/INST/abc', '/api/v1/audit']) {
      const answer = await api().get(path).set(bearer(VIEWER));
      expect(answer.status).toBe(503);
      expect(answer.body.error).toBe('history_off');
    }
  });

  it('shows a destination with its credentials redacted', async () => {
    const answer = await api().get('/api/v1/routes').set(bearer(VIEWER));
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body)).not.toContain('s3cret');
    expect(answer.body.items[0].destination.target).toContain('user:***@example.org');
  });

  it('logs who paused and resumed a route, without the token', async () => {
    await api().post('/api/v1/routes/loans/pause').set(bearer(OPERATOR)).expect(200);
    const state = await api().get('/api/v1/routes').set(bearer(VIEWER));
    expect(state.body.items[0].state).toBe('paused');
    await api().post('/api/v1/routes/loans/resume').set(bearer(OPERATOR)).expect(200);
    const lines = log
      .lines()
      .filter((line) => line.msg === 'console action' && line.target === 'loans');
    expect(
      lines.map((line) => [line.actor, line.operatorAction, line.outcome, line.level]),
    ).toEqual([
      ['ops', 'route.pause', 'done', 30],
      ['ops', 'route.resume', 'done', 30],
    ]);
    // How many it touched: the deliveries waiting on the route.
    expect(lines.map((line) => line.count)).toEqual([expect.any(Number), expect.any(Number)]);
    expect(JSON.stringify(log.lines())).not.toContain(OPERATOR);
  });

  it('serves an OpenAPI 3.1 document listing the calls of the console', async () => {
    const answer = await api().get('/api/v1/openapi.json');
    expect(answer.body.openapi).toBe('3.1.0');
    expect(Object.keys(answer.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/overview',
        '/api/v1/routes',
        '/api/v1/routes/{name}/pause',
        '/api/v1/routes/{name}/resume',
        '/api/v1/routes/{name}/replay',
        '/api/v1/rejected',
        '/api/v1/rejected/{ref}/replay',
        '/api/v1/failed',
        '/api/v1/failed/{jobId}/replay',
        '/api/v1/events',
        '/api/v1/events/{institution}/{id}',
        '/api/v1/replays',
        '/api/v1/replays/{id}',
        '/api/v1/forget',
        '/api/v1/audit',
      ]),
    );
    expect(JSON.stringify(answer.body)).not.toContain('"$ref":"#/$defs');
  });
});

describe('the console while its Redis is away', () => {
  it('renders every page, says Redis is down on the overview and what cannot be read', async () => {
    const proxy = await startStoppableProxy(hostAndPort(TEST_REDIS_URL));
    const dir = await mkdtemp(join(tmpdir(), 'svc-console-down-'));
    await writeFile(
      join(dir, 'tokens.yaml'),
      `tokens:\n  - { name: ops, sha256: ${sha256Hex(OPERATOR)}, role: operator }\n`,
    );
    await writeFile(
      join(dir, 'routes.yaml'),
      'routes:\n  - name: loans\n    to: { file: { dir: /tmp } }\n',
    );
    const env = {
      QUEUE_NAME: uniqueQueueName('console-down'),
      CONSOLE_TOKENS_FILE: join(dir, 'tokens.yaml'),
      ROUTES_FILE: join(dir, 'routes.yaml'),
    };
    const connection = openProducerConnection(`redis://127.0.0.1:${String(proxy.port)}`);
    const log = captureLogger();
    const consoleProcess = createConsoleProcess({
      config: loadConfig(ConsoleConfig, env),
      logger: log.logger,
      connection,
      env,
    });
    const get = (path: string) =>
      request(consoleProcess.app)
        .get(path)
        .set({ Authorization: `Bearer ${OPERATOR}` });
    try {
      if (connection.status !== 'ready') await once(connection, 'ready');
      await proxy.stop();

      const overview = await get('/').expect(200);
      expect(overview.text).toMatch(
        /<td class="down">down<\/td>\s*<td>does not answer: the listener/,
      );
      expect(overview.text).toContain('The routes cannot be read now: Redis does not answer.');
      expect(overview.text).toContain('The event queues cannot be read now');
      for (const path of ['/routes', '/rejected', '/failed', '/failed/no-such-job']) {
        const answer = await get(path);
        expect([path, answer.status]).toEqual([path, 200]);
        expect(answer.text).toContain('This cannot be read now: Redis does not answer');
      }
      const api = await get('/api/v1/overview').expect(200);
      expect(api.body).toMatchObject({
        health: { redis: 'down' },
        unreadable: ['institutions', 'routes', 'expected events'],
        routes: [],
      });
      const routes = await get('/api/v1/routes').expect(503);
      expect(routes.body.error).toBe('redis_down');
      expect(log.lines().filter((line) => line.msg === 'console page failed')).toEqual([]);
    } finally {
      await consoleProcess.close();
      await closeRedis(connection);
      await proxy.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the console’s health checks while its Redis is away', () => {
  it('answers /healthz 200 throughout and /readyz 503 until Redis is back', async () => {
    const proxy = await startStoppableProxy(hostAndPort(TEST_REDIS_URL));
    const dir = await mkdtemp(join(tmpdir(), 'svc-console-health-'));
    await writeFile(join(dir, 'tokens.yaml'), 'tokens: []\n');
    const env = {
      QUEUE_NAME: uniqueQueueName('console-health'),
      CONSOLE_TOKENS_FILE: join(dir, 'tokens.yaml'),
    };
    const connection = openProducerConnection(`redis://127.0.0.1:${String(proxy.port)}`);
    const consoleProcess = createConsoleProcess({
      config: loadConfig(ConsoleConfig, env),
      logger: captureLogger().logger,
      connection,
      env,
    });
    const app = () => request(consoleProcess.app);
    try {
      if (connection.status !== 'ready') await once(connection, 'ready');
      expect((await app().get('/readyz')).status).toBe(200);
      await proxy.stop();
      expect((await app().get('/healthz')).status).toBe(200);
      const away = await app().get('/readyz');
      expect(away.status).toBe(503);
      expect(away.body).toEqual({ status: 'unavailable', message: 'Redis does not answer' });
      await proxy.start();
      await once(connection, 'ready');
      expect((await app().get('/readyz')).status).toBe(200);
    } finally {
      await consoleProcess.close();
      await closeRedis(connection);
      await proxy.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
