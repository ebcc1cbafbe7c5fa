import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { loadConfig, WorkerConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import { startHttpReceiver } from '../../component/routes/support/http-receiver';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { enqueueRouteEvents, writeArchiveAndHookRoutes } from '../worker/support/route-burst';
import { spawnWorker } from '../worker/support/child-process';
import type { ChildWorker } from '../worker/support/child-process';

const EVENTS = 600;
/** The burst of the inline test: each event at two destinations, first attempts inline. */
const INLINE_EVENTS = 2000;

describe('worker with ROUTES_FILE', () => {
  let dir: string;
  let queueName: string;
  let queue: Queue;
  const children: ChildWorker[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-route-worker-'));
    queueName = uniqueQueueName('route-worker');
    queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.child.exitCode === null && child.child.signalCode === null)
        child.child.kill('SIGKILL');
      await child.exited();
    }
    await queue.close();
    for (const name of [
      queueName,
      routeQueueName(queueName, 'archive'),
      routeQueueName(queueName, 'loans'),
      routeQueueName(queueName, 'indexer'),
    ]) {
      await obliterateQueue(name);
    }
    await rm(dir, { recursive: true, force: true });
  });

  const env = (routesFile: string): Record<string, string> => ({
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_NAME: queueName,
    // No event here calls the service: job_end is not among them.
    SVC_BASE_URL: 'http://127.0.0.1:9',
    SVC_API_KEY: 'unused',
    RECORDS_DIR: join(dir, 'records'),
    WORKER_CONCURRENCY: '8',
    WORKER_METRICS_PORT: '0',
    ROUTES_FILE: routesFile,
    ARCHIVE_DIR: join(dir, 'archive'),
  });

  async function archivedIds(): Promise<string[]> {
    const files = await readdir(join(dir, 'archive')).catch(() => [] as string[]);
    const ids: string[] = [];
    for (const file of files) {
      const text = await readFile(join(dir, 'archive', file), 'utf8');
      for (const line of text.split('\n'))
        if (line !== '') ids.push((JSON.parse(line) as { id: string }).id);
    }
    return ids;
  }

  it('refuses to start on a bad routes file, naming the route and the field', async () => {
    const routesFile = join(dir, 'routes.yaml');
    await writeFile(
      routesFile,
      'routes:\n  - name: loans\n    to: { amqp: { url: "${MQ_URL}", exchange: e } }\n',
    );
    const config = loadConfig(WorkerConfig, env(routesFile));
    const logger = createLogger({ level: 'silent', name: 'test' });
    const connection = openWorkerConnection(TEST_REDIS_URL, logger);
    try {
      expect(() => createWorkerProcess({ config, logger, connection, env: {} })).toThrow(
        `invalid routes file ${routesFile}: route "loans": to.amqp.url: environment variable MQ_URL is not set`,
      );
    } finally {
      await closeRedis(connection);
    }
  });

  it.each([
    ['a regular file in the way', 'taken/archive', 'ENOTDIR'],
    ['a directory under /proc', '/proc/svcws-archive/{institution}', 'ENOENT'],
  ])(
    'refuses to start when a file destination cannot be created: %s',
    async (_case, archive, code) => {
      await writeFile(join(dir, 'taken'), '');
      const routesFile = join(dir, 'routes.yaml');
      const archiveDir = archive.startsWith('/') ? archive : join(dir, archive);
      await writeFile(
        routesFile,
        `routes:\n  - name: fine\n    to: { file: { dir: "${join(dir, 'ok', '{action}')}" } }\n` +
          `  - name: archive\n    to: { file: { dir: "${archiveDir}" } }\n`,
      );
      const config = loadConfig(WorkerConfig, env(routesFile));
      const logger = createLogger({ level: 'silent', name: 'test' });
      const connection = openWorkerConnection(TEST_REDIS_URL, logger);
      try {
        expect(() => createWorkerProcess({ config, logger, connection, env: {} })).toThrow(
          `invalid routes file: route "archive": to.file.dir: the directory cannot be created or written (${code})`,
        );
        // The untemplated part of the good route's directory was made on the way.
        expect(await readdir(dir)).toContain('ok');
      } finally {
        await closeRedis(connection);
      }
    },
  );

  it('delivers every event of a burst at least once when the worker is killed mid-burst', async () => {
    const routesFile = join(dir, 'routes.yaml');
    await writeFile(
      routesFile,
      'routes:\n  - name: archive\n    to: { file: { dir: "${ARCHIVE_DIR}" } }\n    retry: { attempts: 5, backoffMs: 100 }\n',
    );
    const events = await enqueueRouteEvents(queue, EVENTS);

    const first = spawnWorker('test/integration/worker/support/worker-child.ts', env(routesFile));
    children.push(first);
    const until = Date.now() + 30_000;
    while ((await archivedIds()).length < 50 && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 20));
    first.child.kill('SIGKILL');
    await first.exited();
    const beforeRestart = new Set(await archivedIds());
    expect(beforeRestart.size).toBeGreaterThanOrEqual(50);
    expect(beforeRestart.size).toBeLessThan(EVENTS);

    const second = spawnWorker('test/integration/worker/support/worker-child.ts', env(routesFile));
    children.push(second);
    const wanted = new Set(events.map((event) => event.id));
    const deadline = Date.now() + 60_000;
    let seen = new Set<string>();
    while (Date.now() < deadline) {
      seen = new Set(await archivedIds());
      if ([...wanted].every((id) => seen.has(id))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect([...wanted].filter((id) => !seen.has(id))).toEqual([]);
    // Nothing was left behind in either queue.
    const routeQueue = new Queue(routeQueueName(queueName, 'archive'), {
      connection: { url: TEST_REDIS_URL },
    });
    try {
      expect(await routeQueue.getFailedCount()).toBe(0);
      expect(await queue.getFailedCount()).toBe(0);
    } finally {
      await routeQueue.close();
    }
  });

  it('delivers every event of a burst to every destination when the worker is killed mid-burst with first attempts inline', async () => {
    const receiver = await startHttpReceiver();
    try {
      const routesFile = await writeArchiveAndHookRoutes(dir);
      const events = await enqueueRouteEvents(queue, INLINE_EVENTS);
      const childEnv = { ...env(routesFile), HOOK: receiver.url, ROUTE_INLINE: 'on' };

      const first = spawnWorker('test/integration/worker/support/worker-child.ts', childEnv);
      children.push(first);
      const until = Date.now() + 60_000;
      while ((await archivedIds()).length < 200 && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 20));
      first.child.kill('SIGKILL');
      await first.exited();
      const beforeRestart = new Set(await archivedIds());
      expect(beforeRestart.size).toBeGreaterThanOrEqual(200);
      expect(beforeRestart.size).toBeLessThan(INLINE_EVENTS);
      const second = spawnWorker('test/integration/worker/support/worker-child.ts', childEnv);
      children.push(second);
      const wanted = events.map((event) => event.id);
      const deadline = Date.now() + 90_000;
      let missing = { archive: wanted, indexer: wanted };
      while (Date.now() < deadline) {
        const archivedNow = new Set(await archivedIds());
        const indexed = new Set(receiver.accepted);
        missing = {
          archive: wanted.filter((id) => !archivedNow.has(id)),
          indexer: wanted.filter((id) => !indexed.has(id)),
        };
        if (missing.archive.length === 0 && missing.indexer.length === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(missing).toEqual({ archive: [], indexer: [] });
      for (const name of ['archive', 'indexer']) {
        const routeQueue = new Queue(routeQueueName(queueName, name), {
          connection: { url: TEST_REDIS_URL },
        });
        try {
          expect(await routeQueue.getFailedCount()).toBe(0);
          // Most deliveries were made inline and left no route job.
          expect(await routeQueue.getCompletedCount()).toBeLessThan(INLINE_EVENTS / 2);
        } finally {
          await routeQueue.close();
        }
      }
      expect(await queue.getFailedCount()).toBe(0);
    } finally {
      await receiver.close();
    }
  }, 180_000);
});
