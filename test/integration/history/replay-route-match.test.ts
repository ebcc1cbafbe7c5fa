import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { runCli } from '../../../src/cli/run-cli';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { openHistoryDatabase } from '../../../src/history/open-history-database';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { captureIo } from '../../component/cli/cli-io-capture';
import { consoleApiCall } from '../../helpers/console-api-call';
import {
  HISTORY_CONSOLE_TOKENS as TOKENS,
  startConsoleWithHistory,
} from '../../helpers/console-with-history';
import type { ConsoleWithHistory } from '../../helpers/console-with-history';
import { TEST_DATABASE_URL } from '../../helpers/history-database';
import { TEST_HISTORY_KEY, fixtureEvent } from '../../helpers/history-events';
import { TEST_REDIS_URL } from '../../helpers/redis';

jest.setTimeout(90_000);

/** Routes beside `loans` (match: { action: [loan] }): one with `where:`, one held to an institution. */
const MORE_ROUTES = [
  { name: 'main-loans', match: '{ action: [loan], where: { item_loan.library: [MAIN] } }' },
  { name: 'inst-b', match: '{ institution: [INST_B] }' },
];

/** A loan at another library than MAIN: `where: { item_loan.library: [MAIN] }` does not take it. */
function lawLoan(): CanonicalEvent {
  const loan = fixtureEvent('loan-created', { id: 'rm-law-loan' });
  const itemLoan = loan.item_loan as Record<string, unknown>;
  return { ...loan, item_loan: { ...itemLoan, library: { value: 'LAW', desc: 'Law' } } };
}

describe('a replay goes where the route would have sent the event (match:, where:, institution)', () => {
  let running: ConsoleWithHistory;
  let dir: string;
  const mainLoan = fixtureEvent('loan-returned', { id: 'rm-main-loan' });
  const law = lawLoan();
  const jobEnd = fixtureEvent('job-end', { id: 'rm-job-end' });
  const user = fixtureEvent('user-updated', { id: 'rm-user' });
  const itemB = {
    ...fixtureEvent('item-updated', { id: 'rm-item-b' }),
    institution: { value: 'INST_B' },
  };
  const all = [mainLoan, law, jobEnd, user, itemB];
  const since = new Date(Date.now() - 60_000).toISOString();

  const cli = async (...args: string[]) => {
    const io = captureIo({
      DATABASE_URL: TEST_DATABASE_URL,
      HISTORY_KEY: TEST_HISTORY_KEY,
      HISTORY_SCHEMA: running.schema,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: running.queueName,
      ROUTES_FILE: join(dir, 'routes.yaml'),
    });
    const code = await runCli(['history', 'replay', '--since', since, ...args], io);
    return { code, out: io.stdout(), err: io.stderr() };
  };
  const call = (path: string, body?: unknown) =>
    consoleApiCall(running.url, TOKENS.operator)(path, body);
  /** The event ids waiting on a route's queue, sorted (then the queue is emptied). */
  const takenFrom = async (route: string): Promise<string[]> => {
    const queue = new Queue(routeQueueName(running.queueName, route), {
      connection: running.redis,
    });
    try {
      const jobs = await queue.getJobs(['waiting', 'delayed', 'prioritized']);
      await queue.drain(true);
      return jobs.map((job) => (job.data as CanonicalEvent).id).sort();
    } finally {
      await queue.close();
    }
  };
  const replayAudit = async () => {
    const db = await openHistoryDatabase({ url: TEST_DATABASE_URL, schema: running.schema });
    if (db === undefined) throw new Error('no history database');
    try {
      const rows = await db.query<{
        target: string;
        count: number;
        details: Record<string, unknown>;
      }>(`SELECT target, count, details FROM audit WHERE action = 'replay' ORDER BY at`);
      return rows.rows;
    } finally {
      await db.close();
    }
  };
  /** A console replay started, then asked after until it has ended (within a deadline). */
  const consoleReplay = async (route: string, more: Record<string, unknown> = {}) => {
    const started = await call('/replays', { route, filters: { since }, dryRun: false, ...more });
    expect(started.status).toBe(202);
    const id = String(started.body.replayId);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const progress = await call(`/replays/${id}`);
      if (progress.body.state !== 'running') return progress.body;
      if (Date.now() > deadline) throw new Error(`replay ${id} still running after 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  beforeAll(async () => {
    running = await startConsoleWithHistory({ replayRatePerSecond: 200, moreRoutes: MORE_ROUTES });
    dir = await mkdtemp(join(tmpdir(), 'svc-replay-match-'));
    const yaml =
      'routes:\n  - name: loans\n    match: { action: [loan] }\n' +
      '    to: { http: { url: "http://127.0.0.1:9/hook" } }\n' +
      MORE_ROUTES.map(
        ({ name, match }) =>
          `  - name: ${name}\n    match: ${match}\n    to: { http: { url: "http://127.0.0.1:9/hook" } }\n`,
      ).join('');
    await writeFile(join(dir, 'routes.yaml'), yaml);
    await running.record(all);
  });

  afterAll(async () => {
    await running?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('history replay --dry-run says both counts and names the actions the route leaves out', async () => {
    const dry = await cli('--route', 'loans', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toContain(
      '5 events match your filter; 2 of them match route loans; left out: 1 item, 1 job_end, 1 user',
    );
    expect(dry.out).toContain('A replay sends 2');
  });

  it('history replay sends a route only the events its match: takes', async () => {
    const replayed = await cli('--route', 'loans');
    expect(replayed).toMatchObject({
      code: 0,
      err: expect.stringContaining('2 of them') as string,
    });
    expect(replayed.out).toContain('2 events queued on route loans');
    expect(await takenFrom('loans')).toEqual([law.id, mainLoan.id].sort());
  });

  it('history replay applies a route’s where: (one library only)', async () => {
    expect((await cli('--route', 'main-loans')).code).toBe(0);
    expect(await takenFrom('main-loans')).toEqual([mainLoan.id]);
  });

  it('history replay applies a route’s institution', async () => {
    expect((await cli('--route', 'inst-b')).code).toBe(0);
    expect(await takenFrom('inst-b')).toEqual([itemB.id]);
  });

  it('history replay --ignore-route-match sends every event, and its audit row says so', async () => {
    const replayed = await cli('--route', 'main-loans', '--ignore-route-match');
    expect(replayed.code).toBe(0);
    expect(replayed.err).toContain('--ignore-route-match: 4 of them the route does not take');
    expect(await takenFrom('main-loans')).toEqual(all.map((event) => event.id).sort());
    const rows = await replayAudit();
    expect(rows.at(-1)).toMatchObject({
      target: 'main-loans',
      count: 5,
      details: { ignoreRouteMatch: true, leftOut: 0 },
    });
    expect(rows.at(-2)).toMatchObject({ target: 'inst-b', count: 1, details: { leftOut: 4 } });
    expect(rows.at(-2)?.details).not.toHaveProperty('ignoreRouteMatch');
  });

  it('the console’s dry run says both counts, the actions left out and which sampled events the route takes', async () => {
    const dry = await call('/replays', { route: 'main-loans', filters: { since } });
    expect(dry.body).toMatchObject({
      dryRun: true,
      count: 5,
      routeCount: 1,
      leftOut: { item: 1, job_end: 1, loan: 1, user: 1 },
      sends: 1,
      outsideRoute: 0,
    });
    const sample = dry.body.sample as { eventId: string; routeTakes: boolean }[];
    expect(sample.filter((item) => item.routeTakes).map((item) => item.eventId)).toEqual([
      mainLoan.id,
    ]);
    const widened = await call('/replays', {
      route: 'main-loans',
      filters: { since },
      ignoreRouteMatch: true,
    });
    expect(widened.body).toMatchObject({ routeCount: 1, sends: 5, outsideRoute: 4 });
  });

  it('the console’s replay applies match:, where: and institution, and ignores them only when asked', async () => {
    expect(await consoleReplay('loans')).toMatchObject({ state: 'done', queued: 2, leftOut: 3 });
    expect(await takenFrom('loans')).toEqual([law.id, mainLoan.id].sort());
    expect(await consoleReplay('main-loans')).toMatchObject({ queued: 1, leftOut: 4 });
    expect(await takenFrom('main-loans')).toEqual([mainLoan.id]);
    expect(await consoleReplay('inst-b')).toMatchObject({ queued: 1, leftOut: 4 });
    expect(await takenFrom('inst-b')).toEqual([itemB.id]);
    const widened = await consoleReplay('inst-b', { ignoreRouteMatch: true });
    expect(widened).toMatchObject({ queued: 5, leftOut: 0, ignoreRouteMatch: true });
    expect(await takenFrom('inst-b')).toHaveLength(5);
    expect((await replayAudit()).at(-1)).toMatchObject({
      target: 'inst-b',
      details: { ignoreRouteMatch: true },
    });
  });

  it('an event’s page offers only the routes that take it', async () => {
    const routesOf = async (event: CanonicalEvent) =>
      (await call(`/events/${event.institution?.value ?? ''}/${event.id}`)).body.routes;
    expect(await routesOf(jobEnd)).toEqual([]);
    expect(await routesOf(law)).toEqual(['loans']);
    expect(await routesOf(mainLoan)).toEqual(['loans', 'main-loans']);
    expect(await routesOf(itemB)).toEqual(['inst-b']);
  });
});
