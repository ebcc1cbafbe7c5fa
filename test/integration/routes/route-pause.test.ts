import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { runCli } from '../../../src/cli/run-cli';
import { loadConfig, WorkerConfig } from '../../../src/config';
import { createEventEnqueuer } from '../../../src/events/enqueue-event';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import type { WorkerProcess } from '../../../src/processes/worker-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { captureIo } from '../../component/cli/cli-io-capture';
import { eventually, routeEvent, silentLogger } from '../../component/routes/support/route-events';
import { startRecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

const { version } = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8'),
) as { version: string };

describe.each(['on', 'off'])(
  'a route pause holds once the command answers (ROUTE_INLINE=%s)',
  (inline) => {
    let dir: string;
    let receiver: RecordingHttpReceiver;
    let queueName: string;
    let events: Queue;
    let env: Record<string, string>;
    const closers: (() => Promise<void>)[] = [];

    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'svc-route-pause-'));
      receiver = await startRecordingHttpReceiver();
      queueName = uniqueQueueName('route-pause');
      events = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
      const routesFile = join(dir, 'routes.yaml');
      await writeFile(
        routesFile,
        'routes:\n  - name: hook\n    to: { http: { url: "${HOOK}" } }\n    retry: { attempts: 3, backoffMs: 100 }\n',
      );
      env = {
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_NAME: queueName,
        SVC_BASE_URL: 'http://127.0.0.1:9',
        SVC_API_KEY: 'unused',
        RECORDS_DIR: join(dir, 'records'),
        ROUTES_FILE: routesFile,
        ROUTE_INLINE: inline,
        HOOK: `${receiver.origin}/hook`,
      };
    });
    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close();
      await events.close();
      await obliterateQueue(queueName);
      await obliterateQueue(routeQueueName(queueName, 'hook'));
      await receiver.close();
      await rm(dir, { recursive: true, force: true });
    });

    /** A real worker process (its own connection), as bin/worker.ts starts it. */
    function startWorker(): WorkerProcess {
      const config = loadConfig(WorkerConfig, env);
      const connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
      const running = createWorkerProcess({ config, logger: silentLogger, connection, env });
      closers.push(async () => {
        await running.close();
        await closeRedis(connection);
      });
      return running;
    }

    async function cli(...argv: string[]): Promise<string> {
      const io = captureIo(env);
      expect(await runCli(argv, io)).toBe(0);
      return io.stdout();
    }

    const deliveredIds = (): string[] =>
      receiver.requests.map((request) => String(request.headers['x-svc-event-id']));

    it('delivers nothing after `routes pause` answers, in any worker, and all of it after resume', async () => {
      // Two worker processes, as a deployment with replicas runs them.
      startWorker();
      startWorker();
      const enqueue = createEventEnqueuer({
        queue: events,
        dedupWindowHours: 1,
        attempts: 3,
        backoffDelayMs: 100,
      });
      const first = routeEvent();
      await enqueue(first);
      await eventually(() => receiver.requests.length === 1, 'the first delivery');
      expect(receiver.requests[0]?.headers['user-agent']).toBe(`svcws-listener/${version}`);

      expect(await cli('routes', 'pause', 'hook')).toMatch(/^✓ route hook paused/);
      const held = [routeEvent(), routeEvent(), routeEvent()];
      for (const event of held) await enqueue(event);

      await new Promise((resolve) => setTimeout(resolve, 5000));
      expect(deliveredIds()).toEqual([first.id]);

      expect(await cli('routes', 'resume', 'hook')).toMatch(/^✓ route hook resumed/);
      await eventually(() => receiver.requests.length === 4, 'the held deliveries after resume');
      expect(deliveredIds().slice(1).sort()).toEqual(held.map((event) => event.id).sort());
    });
  },
);
