import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisClient } from '../../../src/redis/redis-client';
import { runCli } from '../../../src/cli/run-cli';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { openHistoryDatabase } from '../../../src/history/open-history-database';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { captureIo } from '../../component/cli/cli-io-capture';
import { consoleApiCall } from '../../helpers/console-api-call';
import { eventually, silentLogger } from '../../component/routes/support/route-events';
import {
  HISTORY_CONSOLE_TOKENS,
  startConsoleWithHistory,
} from '../../helpers/console-with-history';
import type { ConsoleWithHistory } from '../../helpers/console-with-history';
import { TEST_DATABASE_URL } from '../../helpers/history-database';
import { TEST_HISTORY_KEY, fixtureEvent } from '../../helpers/history-events';
import { recordFinalFailures } from '../../helpers/record-final-failures';
import { startRecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import { TEST_REDIS_URL } from '../../helpers/redis';

const TOKENS = HISTORY_CONSOLE_TOKENS;
/** Two attempts 300 ms apart, no circuit: an event fails for good within a second. */
const LOANS_TO = (origin: string) =>
  `{ http: { url: "${origin}/hook", timeoutMs: 2000 } }\n` +
  '    retry: { attempts: 2, backoffMs: 300 }\n    circuit: off';

const loans = (prefix: string, n: number): CanonicalEvent[] =>
  Array.from({ length: n }, (_, i) =>
    fixtureEvent('loan-created', { id: `${prefix}-${String(i)}` }),
  );

describe('recover since: what failed on a route and never succeeded since, sent again', () => {
  let receiver: RecordingHttpReceiver;
  let running: ConsoleWithHistory;
  let routing: Routing;
  let connection: RedisClient;
  let dir: string;
  const start = new Date(Date.now() - 60_000);
  const never = loans('rs-never', 3);
  const later = loans('rs-later', 2);
  const fine = loans('rs-fine', 1);
  const requestsFor = (id: string) =>
    receiver.requests.filter((one) => one.body.includes(`"${id}"`)).length;
  const call = (token: string, path: string, body?: unknown) =>
    consoleApiCall(running.url, token)(path, body);
  const recoverAudit = async () => {
    const db = await openHistoryDatabase({ url: TEST_DATABASE_URL, schema: running.schema });
    if (db === undefined) throw new Error('no history database');
    try {
      const rows = await db.query<{ action: string; count: number | null; details: object }>(
        // The runs' rows: the refusals the tests before caused have rows of their own.
        `SELECT action, count, details FROM audit WHERE action LIKE 'recover%'
          AND details->>'outcome' IS DISTINCT FROM 'refused' ORDER BY at`,
      );
      return rows.rows;
    } finally {
      await db.close();
    }
  };

  beforeAll(async () => {
    receiver = await startRecordingHttpReceiver(500);
    running = await startConsoleWithHistory({ loansTo: LOANS_TO(receiver.origin) });
    dir = await mkdtemp(join(tmpdir(), 'svc-recover-'));
    const yaml = `routes:\n  - name: loans\n    match: { action: [loan] }\n    to: ${LOANS_TO(receiver.origin)}\n`;
    await writeFile(join(dir, 'routes.yaml'), yaml);
    connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    routing = startRouting({
      connection,
      routes: parseRoutesFile(yaml, {}).routes,
      redisUrl: TEST_REDIS_URL,
      queueName: running.queueName,
      logger: silentLogger,
      history: running.recorder,
    });
    const queue = routing.queues.get('loans');
    if (queue === undefined) throw new Error('no loans queue');
    for (const event of [...never, ...later, ...fine]) await running.recorder.event(event);
    // The receiver fails: three events exhaust their attempts.
    for (const event of never) await routing.fanOut(event, jobIdForEvent(event.id));
    await eventually(async () => (await queue.getFailedCount()) === 3, 'three failed for good');
    // Two more fail once, then the receiver answers again: their retry delivers.
    for (const event of later) await routing.fanOut(event, jobIdForEvent(event.id));
    await eventually(() => later.every((one) => requestsFor(one.id) === 1), 'first attempts');
    receiver.answer(200);
    for (const event of fine) await routing.fanOut(event, jobIdForEvent(event.id));
    await eventually(async () => (await queue.getCompletedCount()) === 3, 'three delivered');
    await running.drainHistory();
  });

  afterAll(async () => {
    await routing.close();
    connection.disconnect();
    await running.close();
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('needs the operator role (a viewer gets 403)', async () => {
    const asked = await call(TOKENS.viewer, '/recoveries', {
      route: 'loans',
      since: start.toISOString(),
    });
    expect(asked.status).toBe(403);
    expect(asked.body.error).toBe('forbidden_role');
  });

  it('refuses a since older than the route’s retention, naming it', async () => {
    const since = new Date(Date.now() - 8 * 86_400_000).toISOString();
    const asked = await call(TOKENS.operator, '/recoveries', { route: 'loans', since });
    expect(asked.status).toBe(400);
    // LOAN is a patron kind: its events are kept HISTORY_PATRON_RETENTION_DAYS (7 by default).
    expect(asked.body.message).toContain('HISTORY_PATRON_RETENTION_DAYS');
    const cli = captureIo(cliEnv());
    expect(
      await runCli(['history', 'recover', '--route', 'loans', '--since', since], cli),
    ).not.toBe(0);
    expect(cli.stderr()).toContain('HISTORY_PATRON_RETENTION_DAYS');
  });

  it('dry run: exactly the never-succeeded events, with their last error; nothing changes', async () => {
    const before = receiver.requests.length;
    const dry = await call(TOKENS.operator, '/recoveries', {
      route: 'loans',
      since: start.toISOString(),
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, count: 3, more: false });
    const sample = dry.body.sample as { eventId: string; status: number | null; attempt: number }[];
    expect(sample.map((one) => one.eventId).sort()).toEqual(never.map((one) => one.id).sort());
    expect(sample.every((one) => one.status === 500 && one.attempt === 2)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.requests.length).toBe(before);
    expect(await routing.queues.get('loans')?.getWaitingCount()).toBe(0);
    expect(await recoverAudit()).toEqual([]);
  });

  it('sends each never-succeeded event once more, the receiver counts each once, audited', async () => {
    const started = await call(TOKENS.operator, '/recoveries', {
      route: 'loans',
      since: start.toISOString(),
      dryRun: false,
    });
    expect(started.status).toBe(202);
    expect(started.location).toBe(`/api/v1/recoveries/${String(started.body.replayId)}`);
    let progress = started;
    await eventually(async () => {
      progress = await call(TOKENS.operator, `/recoveries/${String(started.body.replayId)}`);
      return progress.body.state !== 'running';
    }, 'the recovery ends');
    expect(progress.body).toMatchObject({ kind: 'recover', state: 'done', queued: 3, matched: 3 });
    await eventually(() => never.every((one) => requestsFor(one.id) === 3), 'the re-sends');
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Two failed attempts each before, one delivery now; the others were not sent again.
    expect(never.map((one) => requestsFor(one.id))).toEqual([3, 3, 3]);
    expect(later.map((one) => requestsFor(one.id))).toEqual([2, 2]);
    expect(fine.map((one) => requestsFor(one.id))).toEqual([1]);
    const audit = await recoverAudit();
    expect(audit.map((row) => row.action)).toEqual(['recover.start', 'recover']);
    expect(audit[1]).toMatchObject({ count: 3, details: { since: start.toISOString() } });
    // Delivered now: no longer a candidate.
    await eventually(
      async () => (await routing.queues.get('loans')?.getCompletedCount()) === 6,
      'completed',
    );
    await running.drainHistory();
    const again = await call(TOKENS.operator, '/recoveries', {
      route: 'loans',
      since: start.toISOString(),
    });
    expect(again.body).toMatchObject({ count: 0, more: false });
  });

  it('dry run counts by the route’s rule: both numbers and the actions it leaves out (API and CLI)', async () => {
    // Failed on `loans` when the routes file sent them there: a loan, and a user and an item
    // event that `loans` (match: { action: [loan] }) no longer takes.
    const at = (event: CanonicalEvent): CanonicalEvent => ({
      ...event,
      institution: { value: 'RULE_INST', desc: 'Rule test' },
    });
    const events = [
      at(fixtureEvent('loan-created', { id: 'rule-loan' })),
      at(fixtureEvent('user-updated', { id: 'rule-user' })),
      at(fixtureEvent('item-updated', { id: 'rule-item' })),
    ];
    await running.record(events, (recorder) =>
      recordFinalFailures(recorder, events, {
        route: 'loans',
        attempt: 2,
        status: 500,
        error: 'HTTP 500',
        durationMs: 3,
      }),
    );
    const asked = { route: 'loans', since: start.toISOString(), institution: 'RULE_INST' };
    const dry = await call(TOKENS.operator, '/recoveries', asked);
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({
      dryRun: true,
      count: 3,
      routeCount: 1,
      leftOut: { item: 1, user: 1 },
      sends: 1,
      summary:
        '3 events failed on route loans and never succeeded since; 1 of them matches route loans; left out: 1 item, 1 user',
    });
    const sample = dry.body.sample as { eventId: string; routeTakes: boolean }[];
    expect(Object.fromEntries(sample.map((one) => [one.eventId, one.routeTakes]))).toEqual({
      'rule-loan': true,
      'rule-user': false,
      'rule-item': false,
    });

    const cli = captureIo(cliEnv());
    const args = ['history', 'recover', '--route', 'loans', '--since', start.toISOString()];
    expect(await runCli([...args, '--institution', 'RULE_INST', '--dry-run'], cli)).toBe(0);
    expect(cli.stdout()).toContain(
      '3 events failed on route loans and never succeeded since; 1 of them matches route loans; left out: 1 item, 1 user.',
    );
    expect(cli.stdout()).toMatch(
      /rule-user {2}user .*\(left out: the route does not take it now\)/,
    );
    const json = captureIo(cliEnv());
    expect(await runCli([...args, '--institution', 'RULE_INST', '--dry-run', '--json'], json)).toBe(
      0,
    );
    expect(JSON.parse(json.stdout())).toMatchObject({ count: 3, routeCount: 1, sends: 1 });
  });

  it('over the cap, says "more than 10000" (API and CLI)', async () => {
    await insertFailedEvents(running.schema, 'CAP_INST', 10_001);
    const dry = await call(TOKENS.operator, '/recoveries', {
      route: 'loans',
      since: start.toISOString(),
      institution: 'CAP_INST',
    });
    expect(dry.body).toMatchObject({ dryRun: true, count: 10_000, more: true });
    const cli = captureIo(cliEnv());
    const args = ['history', 'recover', '--route', 'loans', '--since', start.toISOString()];
    const code = await runCli([...args, '--institution', 'CAP_INST', '--dry-run'], cli);
    expect(cli.stderr()).toBe('');
    expect(code).toBe(0);
    expect(cli.stdout()).toContain('More than 10000 events qualify');
  });

  it('marks a recovered job_end: API list, history search and history show --json', async () => {
    const plain = fixtureEvent('job-end', { id: 'recovered-5871' });
    const event: CanonicalEvent = {
      ...plain,
      meta: {
        format: 'json',
        receivedAt: new Date().toISOString(),
        requestId: 'r',
        recovered: true,
      },
    };
    await running.record([event]);
    const listed = await call(TOKENS.viewer, '/events?action=job_end');
    const items = listed.body.items as { eventId: string; recovered: boolean }[];
    expect(items.find((one) => one.eventId === event.id)?.recovered).toBe(true);
    expect(items.filter((one) => one.eventId !== event.id).every((one) => !one.recovered)).toBe(
      true,
    );
    const search = captureIo(cliEnv());
    expect(await runCli(['history', 'search', '--id', event.id], search)).toBe(0);
    expect(search.stdout()).toContain('(recovered)');
    const show = captureIo(cliEnv());
    expect(await runCli(['history', 'show', event.id, '--json'], show)).toBe(0);
    const steps = JSON.parse(show.stdout()) as { kind: string; event?: { recovered: boolean } }[];
    expect(steps.find((step) => step.kind === 'received')?.event?.recovered).toBe(true);
  });

  function cliEnv() {
    return {
      DATABASE_URL: TEST_DATABASE_URL,
      HISTORY_KEY: TEST_HISTORY_KEY,
      HISTORY_SCHEMA: running.schema,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: running.queueName,
      ROUTES_FILE: join(dir, 'routes.yaml'),
    };
  }
});

/** `n` loan events of `institution` whose one attempt on `loans` failed for good, written at once. */
async function insertFailedEvents(schema: string, institution: string, n: number): Promise<void> {
  const db = await openHistoryDatabase({ url: TEST_DATABASE_URL, schema });
  if (db === undefined) throw new Error('no history database');
  try {
    await db.query(
      `INSERT INTO events (patron, received_at, institution, event_id, action)
        SELECT false, now() - interval '1 millisecond' * i, $1, 'cap-' || i, 'loan'
        FROM generate_series(1, $2::int) AS i`,
      [institution, n],
    );
    await db.query(
      `INSERT INTO attempts (patron, event_received_at, record_id, institution, event_id, route,
          attempt, started_at, ended_at, outcome, status, error, duration_ms)
        SELECT patron, received_at, 'a-' || event_id, institution, event_id, 'loans',
          1, received_at, received_at, 'failed', 500, 'HTTP 500', 1
        FROM events WHERE institution = $1`,
      [institution],
    );
    // As autovacuum would after a bulk write: without statistics the planner nests loops.
    await db.query('ANALYZE events; ANALYZE attempts');
  } finally {
    await db.close();
  }
}
