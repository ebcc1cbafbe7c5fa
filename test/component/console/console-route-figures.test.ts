import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisClient } from '../../../src/redis/redis-client';
import { Registry } from 'prom-client';
import request from 'supertest';
import { runCli } from '../../../src/cli/run-cli';
import { ConsoleConfig, loadConfig } from '../../../src/config';
import { sha256Hex } from '../../../src/console';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { createConsoleProcess } from '../../../src/processes/console-process';
import type { ConsoleProcess } from '../../../src/processes/console-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openProducerConnection } from '../../../src/redis/open-producer-connection';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { captureLogger } from '../../helpers/capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { captureIo } from '../cli/cli-io-capture';
import { startHttpReceiver } from '../routes/support/http-receiver';
import type { HttpReceiver } from '../routes/support/http-receiver';
import { eventually, routeEvent, silentLogger } from '../routes/support/route-events';

const OPERATOR = 'operator-token-of-the-figures-test';
const bearer = { Authorization: `Bearer ${OPERATOR}` };

interface Figures {
  state: string;
  delivered: number;
  retrying: number;
  failed: number;
  last: string | null;
}

describe('the console tells the truth: route figures and states from the one source the CLI reads', () => {
  let dir: string;
  let receiver: HttpReceiver;
  let workerConnection: RedisClient;
  let consoleConnection: RedisClient;
  let routing: Routing;
  let consoleProcess: ConsoleProcess;
  let env: Record<string, string>;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-console-figures-'));
    receiver = await startHttpReceiver();
    const queueName = uniqueQueueName('console-figures');
    const yaml = `routes:
  - name: hook
    to: { http: { url: "${receiver.url}" } }
    retry: { attempts: 20, backoffMs: 100 }
    circuit: off
`;
    await writeFile(join(dir, 'routes.yaml'), yaml);
    await writeFile(
      join(dir, 'tokens.yaml'),
      `tokens:\n  - { name: ops, sha256: ${sha256Hex(OPERATOR)}, role: operator }\n`,
    );
    env = {
      QUEUE_NAME: queueName,
      REDIS_URL: TEST_REDIS_URL,
      ROUTES_FILE: join(dir, 'routes.yaml'),
      CONSOLE_TOKENS_FILE: join(dir, 'tokens.yaml'),
    };
    workerConnection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    routing = startRouting({
      connection: workerConnection,
      routes: parseRoutesFile(yaml, {}).routes,
      redisUrl: TEST_REDIS_URL,
      queueName,
      logger: silentLogger,
      registry: new Registry(),
      // ROUTE_INLINE on, as by default: a first attempt that works leaves no route job.
      inline: { deadlineMs: 2000 },
    });
    consoleConnection = openProducerConnection(TEST_REDIS_URL);
    consoleProcess = createConsoleProcess({
      config: loadConfig(ConsoleConfig, env),
      logger: captureLogger().logger,
      connection: consoleConnection,
      env,
    });
    if (consoleConnection.status !== 'ready') await once(consoleConnection, 'ready');
    // Until the inline path has read the queue's pause once (paused-state.ts).
    await new Promise((resolve) => setTimeout(resolve, 300));
  });
  afterEach(async () => {
    await consoleProcess.close();
    await routing.close();
    for (const queue of routing.queues.values()) await obliterateQueue(queue.name);
    await obliterateQueue(env.QUEUE_NAME ?? '');
    await closeRedis(workerConnection);
    await closeRedis(consoleConnection);
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  const api = () => request(consoleProcess.app);

  const send = async (): Promise<string> => {
    const event = routeEvent();
    await routing.fanOut(event, jobIdForEvent(event.id));
    return event.id;
  };

  /** The route's figures as the overview, the routes call and the CLI each give them. */
  async function everywhere(): Promise<{ overview: Figures; routes: Figures; cli: Figures }> {
    const overview = (await api().get('/api/v1/overview').set(bearer).expect(200)).body.routes[0];
    const routes = (await api().get('/api/v1/routes').set(bearer).expect(200)).body.items[0];
    const io = captureIo(env);
    expect(await runCli(['routes', '--json'], io)).toBe(0);
    const [cli] = JSON.parse(io.stdout()) as Record<string, never>[];
    return {
      overview: {
        state: overview.state,
        delivered: overview.deliveredLastHour,
        retrying: overview.retryingLastHour,
        failed: overview.failedLastHour,
        last: overview.lastResult,
      },
      routes: { state: routes.state, ...routes.lastHour, last: null },
      cli: {
        state: cli?.state ?? '',
        ...(cli?.lastHour ?? { delivered: -1, retrying: -1, failed: -1 }),
        last: null,
      },
    };
  }

  it('says failing, with the error, while the receiver refuses connections (inline attempt first)', async () => {
    await receiver.close();
    const eventId = await send();

    await eventually(async () => {
      const answer = await api().get('/api/v1/overview').set(bearer);
      return answer.body.routes[0]?.retryingLastHour >= 2;
    }, 'two failed attempts');
    const overview = (await api().get('/api/v1/overview').set(bearer)).body.routes[0];
    expect(overview).toMatchObject({
      route: 'hook',
      state: 'failing',
      lastResult: 'retrying',
      failing: { attempts: expect.any(Number) as number },
    });
    expect(overview.failing.lastError).toContain('ECONNREFUSED');
    expect(overview.lastError).toContain('ECONNREFUSED');
    const routes = (await api().get('/api/v1/routes').set(bearer)).body.items[0];
    expect(routes.state).toBe('failing');
    // The oldest failure shown is the inline attempt: no route job, replayed by its event id.
    expect(routes.recentFailures.at(-1)).toMatchObject({
      jobId: null,
      eventId,
      attemptsMade: 1,
      outcome: 'retrying',
    });

    const page = await api().get('/').set(bearer).expect(200);
    expect(page.text).toMatch(/<strong class="state-failing">failing<\/strong>/);
    expect(page.text).toContain('ECONNREFUSED');
    const routesPage = await api().get('/routes').set(bearer).expect(200);
    expect(routesPage.text).toContain('inline attempt');
    expect(routesPage.text).toContain('ECONNREFUSED');
    expect(routesPage.text).not.toContain('<p>None.</p>');
  });

  it('counts deliveries made inline, and gives the same figures in the overview, the API and the CLI', async () => {
    for (let index = 0; index < 3; index += 1) await send();
    expect(await routing.queues.get('hook')?.getCompletedCount()).toBe(0);

    await eventually(
      async () => (await everywhere()).cli.delivered === 3,
      'three deliveries counted',
    );
    const seen = await everywhere();
    expect(seen.overview).toMatchObject({ state: 'running', delivered: 3, last: 'delivered' });
    expect(seen.routes).toEqual({ ...seen.cli });
    expect({ ...seen.overview, last: null }).toEqual(seen.cli);
    const page = await api().get('/').set(bearer).expect(200);
    expect(page.text).toMatch(/<td>3 · 0 · 0<\/td>/);
  });

  it('holds a pause from the moment the API answers: nothing delivered in 5 s, then all after resume', async () => {
    const paused = await api().post('/api/v1/routes/hook/pause').set(bearer).expect(200);
    expect(paused.body.message).toMatch(/^route hook paused/);
    const sent = [await send(), await send()];

    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(receiver.requests()).toBe(0);
    expect((await api().get('/api/v1/routes').set(bearer)).body.items[0].state).toBe('paused');

    await api().post('/api/v1/routes/hook/resume').set(bearer).expect(200);
    await eventually(() => receiver.accepted.length === 2, 'the held deliveries');
    expect([...receiver.accepted].sort()).toEqual([...sent].sort());
  });

  it("agrees with the receiver's own count after a mixed run: inline, retried, paused, replayed", async () => {
    for (let index = 0; index < 3; index += 1) await send();
    receiver.answer(503);
    await send();
    await eventually(() => receiver.requests() >= 6, 'two refusals');
    receiver.answer(200);
    await eventually(() => receiver.accepted.length === 4, 'the retried delivery');
    await api().post('/api/v1/routes/hook/pause').set(bearer).expect(200);
    await send();
    await send();
    await api().post('/api/v1/routes/hook/resume').set(bearer).expect(200);
    await eventually(() => receiver.accepted.length === 6, 'the held deliveries');
    receiver.answer(422);
    const refused = await send();
    const queue = routing.queues.get('hook');
    await eventually(async () => (await queue?.getFailedCount()) === 1, 'the failed delivery');
    receiver.answer(200);
    await api().post('/api/v1/routes/hook/replay').set(bearer).send({}).expect(200);
    await eventually(() => receiver.accepted.length === 7, 'the replayed delivery');
    expect(receiver.accepted).toContain(refused);

    await eventually(
      async () => (await everywhere()).overview.delivered === receiver.accepted.length,
      'the figures to agree with the receiver',
    );
    const seen = await everywhere();
    const refusals = receiver.requests() - receiver.accepted.length;
    expect(seen.overview.delivered).toBe(7);
    expect(seen.overview.retrying + seen.overview.failed).toBe(refusals);
    expect(seen.routes).toEqual(seen.cli);
    expect({ ...seen.overview, last: null }).toEqual(seen.cli);
  });
});
