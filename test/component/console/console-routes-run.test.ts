import { writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RedisClient } from '../../../src/redis/redis-client';
import request from 'supertest';
import type { z } from 'zod';
import { RoutesRun } from '../../../src/console/api/api-schemas';
import type { ConsoleProcess } from '../../../src/processes/console-process';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { readRoutesRun, routesRunKeys } from '../../../src/routes/routes-run-registry';
import { pageText } from '../../helpers/page-text';
import { obliterateQueue } from '../../helpers/redis';
import { startRoutesWorker } from '../../helpers/routes-worker';
import type { RoutesWorker } from '../../helpers/routes-worker';
import { eventually } from '../routes/support/route-events';
import { startConsoleOnRedis } from './support/console-on-redis';
import type { ConsoleOnRedis } from './support/console-on-redis';

jest.setTimeout(60_000);

const OPERATOR = 'operator-token-of-the-routes-run-test';
const VIEWER = 'viewer-token-of-the-routes-run-test';
const bearer = { Authorization: `Bearer ${OPERATOR}` };

const routesYaml = (...names: string[]): string =>
  `routes:\n${names
    .map((name) => `  - name: ${name}\n    to: { http: { url: "http://127.0.0.1:9/${name}" } }\n`)
    .join('')}`;

describe('the console shows the routes the workers run, not only those it read at its start', () => {
  let sut: ConsoleOnRedis;
  let dir: string;
  let env: Record<string, string>;
  let consoleConnection: RedisClient;
  let consoleProcess: ConsoleProcess;
  const workers: RoutesWorker[] = [];

  beforeEach(async () => {
    sut = await startConsoleOnRedis({
      name: 'routes-run',
      tokens: [
        { name: 'ops', token: OPERATOR, role: 'operator' },
        { name: 'reader', token: VIEWER, role: 'viewer' },
      ],
      env: (folder) => {
        // The console reads ROUTES_FILE at its start: the file is there before it.
        writeFileSync(join(folder, 'routes.yaml'), routesYaml('loans'));
        return { ROUTES_FILE: join(folder, 'routes.yaml') };
      },
    });
    ({ dir, env, connection: consoleConnection, consoleProcess } = sut);
  });
  afterEach(async () => {
    for (const one of workers.splice(0)) await one.close();
    for (const name of ['loans', 'requests'])
      await obliterateQueue(routeQueueName(env.QUEUE_NAME ?? '', name));
    const keys = routesRunKeys(env.QUEUE_NAME ?? '');
    await consoleConnection.del(keys.entries, keys.until);
    await sut.close();
  });

  /** The worker process as bin/worker.ts builds it, reading ROUTES_FILE as it is now. */
  const startWorker = (): RoutesWorker => {
    const one = startRoutesWorker(env, dir);
    workers.push(one);
    return one;
  };
  const workersSaying = (count: number) =>
    eventually(
      async () => (await readRoutesRun(consoleConnection, env.QUEUE_NAME ?? '')).length === count,
      `${String(count)} workers registered`,
    );
  const routesPage = async (): Promise<string> =>
    pageText((await request(consoleProcess.app).get('/routes').set(bearer).expect(200)).text);

  it('shows a route added and run by a restarted worker, one no worker runs any more, and workers that disagree', async () => {
    const first = startWorker();
    await workersSaying(1);
    const before = await routesPage();
    expect(before).toContain('Workers running routes');
    expect(before).not.toContain('no worker runs it');
    expect(before).not.toMatch(/different routes files|another version/);

    // The routes file changes: `loans` goes, `requests` comes; a second worker reads the new file.
    await writeFile(join(dir, 'routes.yaml'), routesYaml('requests'));
    startWorker();
    await workersSaying(2);
    const both = await routesPage();
    expect(both).toContain("requests (new: run by workers, not in the console's file)");
    expect(both).toContain('The workers read different routes files (2 versions)');

    // The first worker restarts on the new file: every worker agrees, none runs `loans`.
    workers.splice(workers.indexOf(first), 1);
    await first.close();
    startWorker();
    await workersSaying(2);
    const after = await routesPage();
    expect(after).toContain('loans (running) (no worker runs it)');
    expect(after).toContain("requests (new: run by workers, not in the console's file)");
    expect(after).not.toContain('different routes files');
    expect(after).toContain('The console read another version of the routes file at its start');
  });

  /** GET /api/v1/routes-run as a viewer (a read: the same sign-in as every other), typed. */
  const routesRunApi = async (): Promise<z.infer<typeof RoutesRun>> =>
    RoutesRun.parse(
      (
        await request(consoleProcess.app)
          .get('/api/v1/routes-run')
          .set({ Authorization: `Bearer ${VIEWER}` })
          .expect(200)
      ).body,
    );

  it('answers the registry in the JSON API: a route added while the console runs, and workers that disagree on the file', async () => {
    await request(consoleProcess.app).get('/api/v1/routes-run').expect(401);
    const none = await routesRunApi();
    expect(none).toMatchObject({ workers: [], runByNoWorker: [], workersDisagree: false });
    expect(none.consoleHash).toMatch(/^[0-9a-f]{64}$/);

    startWorker();
    await workersSaying(1);
    const one = await routesRunApi();
    expect(one.workers).toEqual([
      expect.objectContaining({ routes: ['loans'], hash: one.consoleHash, pid: process.pid }),
    ]);
    expect(one).toMatchObject({ workersDisagree: false, consoleDiffers: false });

    // `requests` is added to the file while the console runs; a second worker reads the new file.
    await writeFile(join(dir, 'routes.yaml'), routesYaml('loans', 'requests'));
    startWorker();
    await workersSaying(2);
    const two = await routesRunApi();
    expect(two.hashes).toHaveLength(2);
    expect(two.hashes).toContain(one.consoleHash);
    expect(two.workersDisagree).toBe(true);
    expect(two.unknownToConsole).toEqual([{ name: 'requests', workers: [expect.any(String)] }]);
    expect(two.runByNoWorker).toEqual([]);
    const document = (await request(consoleProcess.app).get('/api/v1/openapi.json').expect(200))
      .body as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toContain('/api/v1/routes-run');
  });

  it('says no worker runs routes when none has registered', async () => {
    const page = await routesPage();

    expect(page).toContain('No worker says it runs routes');
    // No worker at all is said once, above; each route is not marked as well.
    expect(page).not.toContain('no worker runs it');
  });

  it('drops a worker that stopped refreshing once its entry expires', async () => {
    const one = startWorker();
    await workersSaying(1);
    const [entry] = await readRoutesRun(consoleConnection, env.QUEUE_NAME ?? '');
    // Read as if the TTL had passed: the entry does not count (a dead worker drops out).
    expect(
      await readRoutesRun(consoleConnection, env.QUEUE_NAME ?? '', Date.now() + 60_000),
    ).toEqual([]);
    expect(entry?.routes).toEqual(['loans']);
    await one.close();
    workers.splice(0);
    // A worker that stops removes its entry at once.
    expect(await readRoutesRun(consoleConnection, env.QUEUE_NAME ?? '')).toEqual([]);
  });
});
