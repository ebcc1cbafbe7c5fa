import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RedisClient } from '../../../src/redis/redis-client';
import request from 'supertest';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import type { ConsoleProcess } from '../../../src/processes/console-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { startRecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import { TEST_REDIS_URL, obliterateQueue } from '../../helpers/redis';
import { eventually, routeEvent, silentLogger } from '../routes/support/route-events';
import { startConsoleOnRedis } from './support/console-on-redis';
import type { ConsoleOnRedis } from './support/console-on-redis';

const OPERATOR = 'operator-token-of-the-route-delayed-test';
const bearer = { Authorization: `Bearer ${OPERATOR}` };

/** A retry ten minutes after a failed attempt: a failed first attempt stays delayed for the test. */
const routesYaml = (origin: string): string =>
  'routes:\n  - name: hook\n' +
  `    to: { http: { url: "${origin}/hook", timeoutMs: 2000 } }\n` +
  '    retry: { attempts: 5, backoffMs: 600000 }\n    circuit: off\n';

describe('the console shows a route’s deliveries delayed for a retry beside its waiting ones', () => {
  let sut: ConsoleOnRedis;
  let receiver: RecordingHttpReceiver;
  let connection: RedisClient;
  let routing: Routing;
  let consoleProcess: ConsoleProcess;

  beforeEach(async () => {
    receiver = await startRecordingHttpReceiver(500);
    sut = await startConsoleOnRedis({
      name: 'route-delayed',
      tokens: [{ name: 'ops', token: OPERATOR, role: 'operator' }],
      env: (dir) => {
        writeFileSync(join(dir, 'routes.yaml'), routesYaml(receiver.origin));
        return { ROUTES_FILE: join(dir, 'routes.yaml') };
      },
    });
    consoleProcess = sut.consoleProcess;
    connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    routing = startRouting({
      connection,
      routes: parseRoutesFile(routesYaml(receiver.origin), {}).routes,
      redisUrl: TEST_REDIS_URL,
      queueName: sut.queueName,
      logger: silentLogger,
    });
  });
  afterEach(async () => {
    await routing.close();
    await obliterateQueue(routeQueueName(sut.queueName, 'hook'));
    await closeRedis(connection);
    await sut.close();
    await receiver.close();
  });

  const api = (path: string) => request(consoleProcess.app).get(path).set(bearer).expect(200);
  const send = async (): Promise<void> => {
    const event = routeEvent();
    await routing.fanOut(event, jobIdForEvent(event.id));
  };

  it('reads "1 (+2 delayed)" on the overview, in its API and on the routes page, not "Waiting 1"', async () => {
    const queue = routing.queues.get('hook');
    if (queue === undefined) throw new Error('no hook queue');
    // Two deliveries fail their first attempt: each waits ten minutes for its retry.
    await send();
    await send();
    await eventually(async () => (await queue.getDelayedCount()) === 2, 'two retries delayed');
    expect(receiver.requests).toHaveLength(2);
    // Paused, the route keeps a third delivery waiting.
    await request(consoleProcess.app).post('/api/v1/routes/hook/pause').set(bearer).expect(200);
    await send();

    const [row] = (await api('/api/v1/overview')).body.routes as Record<string, unknown>[];
    expect(row).toMatchObject({ route: 'hook', waiting: 1, delayed: 2 });
    const overview = (await api('/')).text;
    expect(overview).toMatch(/<td>\s*1 \(\+2 delayed\)\s*<\/td>/);
    const routes = (await api('/routes')).text.replace(/\s+/g, ' ');
    expect(routes).toContain('waiting 1 · active 0 · delayed 2 · failed 0');
  });
});
