import { Queue } from 'bullmq';
import { runCli } from '../../../src/cli/run-cli';
import { historyActor } from '../../../src/cli/history-actor';
import { deriveHistoryKeys } from '../../../src/history/history-keys';
import { openHistoryDatabase } from '../../../src/history/open-history-database';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { runsKey, takeRunSlot } from '../../../src/operations/running-runs';
import type { RunSlot } from '../../../src/operations/running-runs';
import { takeRecoveryLock } from '../../../src/operations/recovery-lock';
import { captureIo } from '../../component/cli/cli-io-capture';
import { captureLogger } from '../../helpers/capture-logger';
import type { CapturedLogger } from '../../helpers/capture-logger';
import {
  HISTORY_CONSOLE_TOKENS,
  startConsoleWithHistory,
} from '../../helpers/console-with-history';
import type { ConsoleWithHistory } from '../../helpers/console-with-history';
import { TEST_DATABASE_URL } from '../../helpers/history-database';
import { TEST_HISTORY_KEY, fixtureEvent } from '../../helpers/history-events';
import { recordFinalFailures } from '../../helpers/record-final-failures';
import { TEST_REDIS_URL } from '../../helpers/redis';

const TOKENS = HISTORY_CONSOLE_TOKENS;
const PATRON = 'patron-refused-7731';
/** The event recorded: failed for good on `loans`, so a recovery of the route would send it. */
const FAILED = fixtureEvent('loan-created', { id: 'refused-loan-1' });

interface AuditRow {
  actor: string;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
}

describe('a refused replay, recovery or forget is logged and kept in the audit', () => {
  let running: ConsoleWithHistory;
  let log: CapturedLogger;
  /** A run of another process holding the only slot of REPLAY_MAX_RUNNING=1 while it lasts. */
  let otherRun: { slot: RunSlot; queue: Queue } | undefined;

  beforeAll(async () => {
    log = captureLogger();
    running = await startConsoleWithHistory({
      logger: log.logger,
      env: { REPLAY_MAX_RUNNING: '1' },
    });
    await running.record([FAILED], (recorder) =>
      recordFinalFailures(recorder, [FAILED], {
        route: 'loans',
        attempt: 10,
        status: 503,
        error: 'HTTP 503',
        durationMs: 5,
      }),
    );
  });

  afterAll(async () => {
    await releaseOtherRun();
    await running.close();
  });

  async function holdTheOnlySlot(): Promise<void> {
    const queue = new Queue(routeQueueName(running.queueName, 'loans'), {
      connection: { url: TEST_REDIS_URL },
    });
    const taken = await takeRunSlot(
      await queue.backend.connection.client,
      { key: runsKey(running.queueName), max: 1 },
      {
        replayId: 'elsewhere1',
        kind: 'replay',
        route: 'loans',
        actor: 'cli:someone',
        startedAt: '2026-01-01T00:00:00.000Z',
      },
    );
    if (!('slot' in taken)) throw new Error('the slot was taken already');
    otherRun = { slot: taken.slot, queue };
  }

  /**
   * Runs `refused` while another process recovers route loans (its recovery lock held), then
   * holds that `actor`'s last audit row to a refused recovery and that nothing was queued.
   */
  async function whileAnotherRecovers(actor: string, refused: () => Promise<void>): Promise<void> {
    const queue = new Queue(routeQueueName(running.queueName, 'loans'), {
      connection: { url: TEST_REDIS_URL },
    });
    const taken = await takeRecoveryLock(await queue.backend.connection.client, queue.name, {
      replayId: 'recover1',
      actor: 'cli:someone',
      startedAt: '2026-01-01T00:00:00.000Z',
    });
    try {
      if (!('lock' in taken)) throw new Error('the recovery lock was taken already');
      await refused();
      expect((await auditRows(actor)).at(-1)).toMatchObject({
        action: 'recover',
        target: 'loans',
        details: { outcome: 'refused', reason: 'recovery_running' },
      });
      // Nothing was sent again.
      expect(await queue.count()).toBe(0);
    } finally {
      if ('lock' in taken) await taken.lock.release();
      await queue.close();
    }
  }

  async function releaseOtherRun(): Promise<void> {
    await otherRun?.slot.release();
    await otherRun?.queue.close();
    otherRun = undefined;
  }

  const call = async (token: string, path: string, body: unknown) => {
    const response = await fetch(`${running.url}/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  async function auditRows(actor: string): Promise<AuditRow[]> {
    const db = await openHistoryDatabase({ url: TEST_DATABASE_URL, schema: running.schema });
    if (db === undefined) throw new Error('no history database');
    try {
      const rows = await db.query<AuditRow>(
        `SELECT actor, action, target, details FROM audit
          WHERE actor = $1 AND details->>'outcome' = 'refused' ORDER BY at`,
        [actor],
      );
      return rows.rows;
    } finally {
      await db.close();
    }
  }

  const refusedLines = () =>
    log.lines().filter((line) => line.msg === 'console action' && line.outcome === 'refused');

  it.each([
    {
      name: 'a viewer’s replay (no permission)',
      token: TOKENS.viewer,
      actor: 'reader',
      path: '/replays',
      body: { route: 'loans', dryRun: false },
      status: 403,
      reason: 'forbidden_role',
      action: 'replay',
      target: 'loans',
    },
    {
      name: 'a recovery without its since (bad input, refused by the API’s schema)',
      token: TOKENS.operator,
      actor: 'ops',
      path: '/recoveries',
      body: { route: 'loans' },
      status: 400,
      reason: 'invalid_request',
      action: 'recover',
      target: 'loans',
    },
    {
      name: 'a replay of a route that does not exist',
      token: TOKENS.operator,
      actor: 'ops',
      path: '/replays',
      body: { route: 'nowhere', dryRun: false },
      status: 404,
      reason: 'not_found',
      action: 'replay',
      target: 'nowhere',
    },
  ])('API: $name', async (asked) => {
    const before = (await auditRows(asked.actor)).length;

    const answer = await call(asked.token, asked.path, asked.body);

    expect(answer.status).toBe(asked.status);
    expect(answer.body.error).toBe(asked.reason);
    expect(refusedLines().at(-1)).toMatchObject({
      level: 40,
      actor: asked.actor,
      operatorAction: asked.action,
      target: asked.target,
      reason: asked.reason,
    });
    const rows = await auditRows(asked.actor);
    expect(rows).toHaveLength(before + 1);
    expect(rows.at(-1)).toMatchObject({
      action: asked.action,
      target: asked.target,
      details: { outcome: 'refused', reason: asked.reason, detail: answer.body.message },
    });
  });

  it('API: a forget out of the principal’s scope names the person by hash only', async () => {
    const answer = await call(TOKENS.scoped, '/forget', { user: PATRON });

    expect(answer.status).toBe(403);
    expect(refusedLines().at(-1)).toMatchObject({
      actor: 'inst-b-ops',
      operatorAction: 'forget',
      target: 'person',
      reason: 'forbidden_scope',
    });
    expect(log.text()).not.toContain(PATRON);
    const hash = deriveHistoryKeys(TEST_HISTORY_KEY).hashPerson(PATRON);
    expect((await auditRows('inst-b-ops')).at(-1)).toMatchObject({
      action: 'forget',
      target: hash,
      details: { outcome: 'refused', reason: 'forbidden_scope' },
    });
  });

  it('API: a replay past REPLAY_MAX_RUNNING is refused naming the running run', async () => {
    await holdTheOnlySlot();
    try {
      const answer = await call(TOKENS.operator, '/replays', { route: 'loans', dryRun: false });

      expect(answer.status).toBe(409);
      expect(answer.body.error).toBe('too_many_runs');
      expect(answer.body.message).toContain(
        'elsewhere1 (replay of route loans by cli:someone, started 2026-01-01T00:00:00.000Z)',
      );
      expect(refusedLines().at(-1)).toMatchObject({
        operatorAction: 'replay',
        reason: 'too_many_runs',
      });
      expect((await auditRows('ops')).at(-1)).toMatchObject({
        action: 'replay',
        target: 'loans',
        details: { outcome: 'refused', reason: 'too_many_runs' },
      });
    } finally {
      await releaseOtherRun();
    }
  });

  const anHourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
  const holderWords =
    'a recovery of route loans is already running: recover1, started by cli:someone at 2026-01-01T00:00:00.000Z';

  it('API: a recovery while another holds the route’s lock is refused (409) naming the first', async () => {
    await whileAnotherRecovers('ops', async () => {
      const answer = await call(TOKENS.operator, '/recoveries', {
        route: 'loans',
        since: anHourAgo(),
        dryRun: false,
      });

      expect(answer.status).toBe(409);
      expect(answer.body.error).toBe('recovery_running');
      expect(answer.body.message).toContain(holderWords);
      expect(refusedLines().at(-1)).toMatchObject({
        actor: 'ops',
        operatorAction: 'recover',
        target: 'loans',
        reason: 'recovery_running',
      });
    });
  });

  /** A page's form, posted with a Bearer token (no session, so no CSRF token to carry). */
  const postForm = (path: string, fields: Record<string, string>, token = TOKENS.operator) =>
    fetch(`${running.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });

  /** The event's "deliver again" form (its page's, history-pages.ts). */
  const deliverAgain = `/events/${FAILED.institution?.value ?? ''}/${FAILED.id}/replay`;
  const VIEWER = { token: TOKENS.viewer, actor: 'reader', status: 403 };

  /** A form refused: by the operator `ops` with 400 unless it says. */
  interface RefusedForm {
    readonly name: string;
    readonly path: string;
    readonly fields: Record<string, string>;
    readonly action: string;
    readonly target: string;
    readonly reason: string;
    readonly token?: string;
    readonly actor?: string;
    readonly status?: number;
    /** The audit row's target where it is not the log line's (a person's keyed hash). */
    readonly auditTarget?: string;
  }

  it.each<RefusedForm>([
    {
      name: 'a replay by query ignoring the route’s match, not confirmed',
      path: '/replays',
      fields: { route: 'loans', ignoreRouteMatch: 'on' },
      action: 'replay',
      target: 'loans',
      reason: 'invalid_request',
    },
    {
      name: 'a recovery without its since',
      path: '/recoveries',
      fields: { route: 'loans' },
      action: 'recover',
      target: 'loans',
      reason: 'invalid_request',
    },
    {
      name: 'a forget without the person',
      path: '/forget',
      fields: { user: ' ' },
      action: 'forget',
      target: 'person',
      reason: 'invalid_request',
    },
    {
      name: 'a viewer’s forget (no permission), the person kept by hash only',
      path: '/forget',
      fields: { user: PATRON },
      action: 'forget',
      target: 'person',
      reason: 'forbidden_role',
      ...VIEWER,
      auditTarget: deriveHistoryKeys(TEST_HISTORY_KEY).hashPerson(PATRON),
    },
    {
      name: 'a “deliver again” to a route the routes file does not have',
      path: deliverAgain,
      fields: { route: 'nowhere' },
      action: 'replay',
      target: 'nowhere',
      reason: 'not_found',
      status: 404,
    },
    {
      name: 'a viewer’s “deliver again” (no permission)',
      path: deliverAgain,
      fields: { route: 'loans' },
      action: 'replay',
      target: 'loans',
      reason: 'forbidden_role',
      ...VIEWER,
    },
  ])('page form: $name', async (asked) => {
    const actor = asked.actor ?? 'ops';
    const before = (await auditRows(actor)).length;

    const answer = await postForm(asked.path, asked.fields, asked.token);

    expect(answer.status).toBe(asked.status ?? 400);
    expect(refusedLines().at(-1)).toMatchObject({
      actor,
      operatorAction: asked.action,
      target: asked.target,
      reason: asked.reason,
    });
    expect(log.text()).not.toContain(PATRON);
    const rows = await auditRows(actor);
    expect(rows).toHaveLength(before + 1);
    expect(rows.at(-1)).toMatchObject({
      action: asked.action,
      target: asked.auditTarget ?? asked.target,
      details: { outcome: 'refused', reason: asked.reason },
    });
  });

  const cliEnv = () => ({ ...running.cliEnv(), REPLAY_MAX_RUNNING: '1' });

  it.each([
    {
      name: 'a replay without --route (bad input)',
      args: ['history', 'replay', '--action', 'loan'],
      reason: 'invalid_request',
      action: 'replay',
      target: '-',
    },
    {
      name: 'a recovery of a route the routes file does not have',
      args: ['history', 'recover', '--route', 'nowhere', '--since', new Date().toISOString()],
      reason: 'not_found',
      action: 'recover',
      target: 'nowhere',
    },
    {
      name: 'a recovery older than the retention',
      args: ['history', 'recover', '--route', 'loans', '--since', '2000-01-01T00:00:00Z'],
      reason: 'invalid_request',
      action: 'recover',
      target: 'loans',
    },
    {
      name: 'a forget without --user',
      args: ['history', 'forget'],
      reason: 'invalid_request',
      action: 'forget',
      target: 'person',
    },
  ])('CLI: $name', async (asked) => {
    const actor = historyActor();
    const before = (await auditRows(actor)).length;
    const io = captureIo(cliEnv());

    const code = await runCli(asked.args, io);

    expect(code).toBe(2);
    expect(io.stderr()).toContain(
      `refused: history ${asked.action} of ${asked.target} by ${actor} (${asked.reason})`,
    );
    const rows = await auditRows(actor);
    expect(rows).toHaveLength(before + 1);
    expect(rows.at(-1)).toMatchObject({
      action: asked.action,
      target: asked.target,
      details: { outcome: 'refused', reason: asked.reason },
    });
  });

  it('CLI: a replay past REPLAY_MAX_RUNNING is refused naming the running run', async () => {
    await holdTheOnlySlot();
    try {
      const io = captureIo(cliEnv());

      const code = await runCli(['history', 'replay', '--route', 'loans'], io);

      expect(code).toBe(2);
      expect(io.stderr()).toContain('REPLAY_MAX_RUNNING is 1: elsewhere1 (replay of route loans');
      expect(io.stderr()).toContain(`refused: history replay of loans by ${historyActor()}`);
      expect((await auditRows(historyActor())).at(-1)).toMatchObject({
        action: 'replay',
        target: 'loans',
        details: { outcome: 'refused', reason: 'too_many_runs' },
      });
      // Nothing was queued.
      expect(await otherRun?.queue.count()).toBe(0);
    } finally {
      await releaseOtherRun();
    }
  });

  it('CLI: a recovery while another holds the route’s lock is refused (exit 2) naming the first', async () => {
    await whileAnotherRecovers(historyActor(), async () => {
      const io = captureIo(cliEnv());

      const code = await runCli(
        ['history', 'recover', '--route', 'loans', '--since', anHourAgo()],
        io,
      );

      expect(code).toBe(2);
      expect(io.stderr()).toContain(holderWords);
      expect(io.stderr()).toContain(
        `refused: history recover of loans by ${historyActor()} (recovery_running)`,
      );
    });
  });
});
