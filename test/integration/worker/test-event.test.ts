import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { runCli } from '../../../src/cli/run-cli';
import { WorkerConfig } from '../../../src/config';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import type { RunningWorker } from '../../../src/worker/create-worker';
import { captureIo } from '../../component/cli/cli-io-capture';
import { eventually } from '../../component/routes/support/route-events';
import { captureLogger } from '../../helpers/capture-logger';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { startRecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import { TEST_REDIS_URL, obliterateQueue } from '../../helpers/redis';

jest.setTimeout(90_000);

describe('send-test-event: a marked event through the listener, the signature and the queue, harmless', () => {
  let listener: ListenerUnderTest;
  let server: Server;
  let worker: RunningWorker;
  let connection: ReturnType<typeof openWorkerConnection>;
  let receiver: RecordingHttpReceiver;
  let platformApi: RecordingHttpReceiver;
  let dir: string;

  beforeAll(async () => {
    receiver = await startRecordingHttpReceiver(200);
    // Where the worker's API client points: any request here would be an API call.
    platformApi = await startRecordingHttpReceiver(500);
    dir = await mkdtemp(join(tmpdir(), 'svc-test-event-'));
    listener = listenerUnderTest();
    server = listener.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const routesFile = join(dir, 'routes.yaml');
    await writeFile(
      routesFile,
      'routes:\n' +
        `  - name: job-ends\n    match: { action: [job_end] }\n    to: { http: { url: "${receiver.origin}/hooks/job-ends" } }\n` +
        `  - name: checks\n    match: { action: [job_end] }\n    testEvents: true\n    to: { http: { url: "${receiver.origin}/hooks/checks" } }\n`,
    );
    const log = captureLogger();
    connection = openWorkerConnection(TEST_REDIS_URL, log.logger);
    worker = createWorkerProcess({
      connection,
      config: WorkerConfig.parse({
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_NAME: listener.queueName,
        SVC_BASE_URL: platformApi.origin,
        SVC_API_KEY: 'unused',
        RECORDS_DIR: join(dir, 'records'),
        ROUTES_FILE: routesFile,
        WORKER_METRICS_PORT: '0',
      }),
      logger: log.logger,
      env: {},
    });
  });

  afterAll(async () => {
    await worker?.close();
    await closeRedis(connection);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await listener?.close();
    await receiver?.close();
    await platformApi?.close();
    for (const route of ['job-ends', 'checks']) {
      await obliterateQueue(routeQueueName(listener.queueName, route));
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('completes a sample job_end as a test event: no failed job, no API call, no delivery but to a route that opts in', async () => {
    const port = (server.address() as AddressInfo).port;
    const io = captureIo({ REDIS_URL: TEST_REDIS_URL, QUEUE_NAME: listener.queueName });
    const code = await runCli(
      [
        'send-test-event',
        ...['--url', `http://127.0.0.1:${String(port)}/webhooks`],
        ...['--secret', TEST_SECRET, '--sample', 'job_end'],
      ],
      io,
    );
    expect(io.stderr()).toBe('');
    expect(code).toBe(0);
    const out = io.stdout();
    expect(out).toContain(
      'accepted: the listener verified the signature and queued event svcws-test-',
    );
    expect(out).toContain('→ queued: job evt-svcws-test-');
    expect(out).toContain('✓ completed as a test event');
    const queue = listener.events.queue;
    expect(await queue.getFailedCount()).toBe(0);
    const [job] = await queue.getCompleted();
    expect(job?.returnvalue).toEqual({ outcome: 'test event' });
    // The route that opts in (testEvents: true) receives it; the other takes no job for it.
    await eventually(() => receiver.requests.length === 1, 'the opted-in route delivered');
    expect(receiver.requests.map((request) => request.path)).toEqual(['/hooks/checks']);
    const jobEnds = new Queue(routeQueueName(listener.queueName, 'job-ends'), { connection });
    try {
      const counts = await jobEnds.getJobCounts();
      expect(Object.values(counts).reduce((sum, n) => sum + n, 0)).toBe(0);
    } finally {
      await jobEnds.close();
    }
    expect(platformApi.requests).toEqual([]);
  });
});
