import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createBackgroundReplays } from '../../../src/operations/background-replays';
import type {
  BackgroundReplays,
  ReplayRun,
  ReplayStart,
  RunStart,
} from '../../../src/operations/background-replays';
import { recoveryLockKey } from '../../../src/operations/recovery-lock';
import { runsKey } from '../../../src/operations/running-runs';
import { createHistoryWriter } from '../../../src/history/create-history-writer';
import { deriveHistoryKeys } from '../../../src/history/history-keys';
import type { SqlExecutor } from '../../../src/history/sql-executor';
import { openTestHistory } from '../../helpers/history-database';
import { TEST_HISTORY_KEY, fixtureEvent, testHistoryRecorder } from '../../helpers/history-events';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

/** The run a start answered; a refusal fails the test. */
function startedRun(answer: RunStart): ReplayRun {
  if ('refused' in answer) throw new Error(`refused: ${answer.refused.message}`);
  return answer;
}

/** Asks again until the run has ended (it runs after `start` has answered). */
async function ended(get: () => ReplayRun | undefined): Promise<ReplayRun | undefined> {
  const deadline = Date.now() + 30_000;
  while (get()?.state === 'running' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return get();
}

describe('replays by query in the background', () => {
  let history: { db: SqlExecutor; close: () => Promise<void> };
  let redis: Redis;
  let queueName: string;
  const bibs = [0, 1].map((i) => fixtureEvent('bib-updated', { id: `bg-bib-${String(i)}` }));
  const context = () => ({ db: history.db, keys: deriveHistoryKeys(TEST_HISTORY_KEY) });
  /** A replay (or with `more`, a recovery) of the two bib events to route indexer via `queue`. */
  const replayBibs = (replays: BackgroundReplays, queue: Queue, more: Partial<ReplayStart> = {}) =>
    tryReplayBibs(replays, queue, more).then(startedRun);
  const tryReplayBibs = (
    replays: BackgroundReplays,
    queue: Queue,
    more: Partial<ReplayStart> = {},
  ): Promise<RunStart> =>
    replays.start({
      route: 'indexer',
      filters: { action: 'bib' },
      actor: 'ops',
      institution: undefined,
      target: { queue, jobOptions: {}, takes: () => true },
      ...more,
    });
  const auditOf = async (replayId: string) =>
    (
      await history.db.query<{ action: string; details: Record<string, unknown> }>(
        `SELECT action, details FROM audit WHERE details->>'replayId' = $1 ORDER BY at`,
        [replayId],
      )
    ).rows;

  beforeAll(async () => {
    history = await openTestHistory('bgreplay');
    redis = new Redis(TEST_REDIS_URL);
    queueName = uniqueQueueName('bg-replay');
    const streamKey = `${queueName}:history`;
    const recorder = testHistoryRecorder(redis, streamKey);
    for (const bib of bibs) await recorder.event(bib);
    const writer = createHistoryWriter({ redis, db: history.db, streamKey });
    while ((await writer.drainOnce()) > 0);
    await redis.del(streamKey);
  });

  afterAll(async () => {
    await obliterateQueue(queueName);
    redis.disconnect();
    await history.close();
  });

  it('ends failed with the error, and audits the start and the failure', async () => {
    const queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    await queue.close(); // a closed queue cannot add: the replay fails on its first event
    const replays = createBackgroundReplays({ context: context() });

    const started = await replayBibs(replays, queue);
    const run = await ended(() => replays.get(started.replayId));

    expect(started.state).toBe('running');
    expect(run).toMatchObject({ state: 'failed', queued: 0, matched: 2 });
    expect(run?.errors).toHaveLength(1);
    expect(run?.endedAt).toEqual(expect.any(String));
    const rows = await auditOf(started.replayId);
    expect(rows.map((row) => row.action)).toEqual(['replay.start', 'replay.failed']);
    await replays.close();
  });

  it('stops between two events when the console closes; the audit says how far it got', async () => {
    const queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    // One delivery every 10 s: the second waits long after close().
    const replays = createBackgroundReplays({ context: context(), ratePerSecond: 0.1 });
    const started = await replayBibs(replays, queue);
    while ((replays.get(started.replayId)?.queued ?? 0) < 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    await replays.close();

    expect(replays.get(started.replayId)).toMatchObject({ state: 'stopped', queued: 1 });
    const rows = await auditOf(started.replayId);
    expect(rows.map((row) => row.action)).toEqual(['replay.start', 'replay']);
    expect(rows[1]?.details.stopped).toBe(true);
    await queue.close();
  });

  it('a recovery stops at its cap, says there were more, and is audited as recover', async () => {
    const queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    const replays = createBackgroundReplays({ context: context() });
    const started = await replayBibs(replays, queue, {
      kind: 'recover',
      atMost: 1,
      details: { since: '2024-11-06T14:00:00.000Z' },
    });

    const run = await replays.ended(started.replayId);

    expect(run).toMatchObject({
      kind: 'recover',
      state: 'done',
      queued: 1,
      matched: 1,
      more: true,
    });
    const rows = await auditOf(started.replayId);
    expect(rows.map((row) => row.action)).toEqual(['recover.start', 'recover']);
    expect(rows[1]?.details).toMatchObject({ capped: true, since: '2024-11-06T14:00:00.000Z' });
    await replays.close();
    await queue.close();
  });

  it('runs one of four concurrent recoveries of a route; the others are refused naming it, and each event is queued once', async () => {
    const route = uniqueQueueName('bg-recover-once');
    const queue = new Queue(route, { connection: { url: TEST_REDIS_URL } });
    const replays = createBackgroundReplays({ context: context(), ratePerSecond: 1000 });
    const recover = (actor: string) =>
      replays.startRecovery({
        route: 'indexer',
        filters: { action: 'bib' },
        actor,
        institution: undefined,
        target: { queue, jobOptions: {}, takes: () => true },
        kind: 'recover',
      });

    const four = await Promise.all(['ops-1', 'ops-2', 'ops-3', 'ops-4'].map(recover));

    const running = four.flatMap((one) => ('refused' in one ? [] : [one]));
    expect(running).toHaveLength(1);
    const first = running[0];
    if (first === undefined) throw new Error('none ran');
    for (const one of four.filter((each) => 'refused' in each)) {
      expect(one).toEqual({
        refused: {
          code: 'recovery_running',
          message: expect.stringContaining(
            `already running: ${first.replayId}, started by ${first.actor}`,
          ) as unknown,
        },
      });
    }
    await replays.ended(first.replayId);
    expect(await queue.count()).toBe(bibs.length);
    // Ended: the route may be recovered again.
    const again = await recover('ops-5');
    expect('refused' in again).toBe(false);
    await replays.close();
    await queue.close();
    await obliterateQueue(route);
  });

  it('a recovery that fails is audited as recover.failed', async () => {
    const queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    await queue.close(); // a closed queue cannot add: the recovery fails on its first event
    const replays = createBackgroundReplays({ context: context() });
    const started = await replayBibs(replays, queue, { kind: 'recover' });

    expect((await replays.ended(started.replayId))?.state).toBe('failed');
    const rows = await auditOf(started.replayId);
    expect(rows.map((row) => row.action)).toEqual(['recover.start', 'recover.failed']);
    await replays.close();
  });

  it('refuses a run past REPLAY_MAX_RUNNING, naming the running ones, in any process; frees the slot when a run ends', async () => {
    const queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    const runCap = { key: runsKey(uniqueQueueName('bg-cap')), max: 2 };
    // Two processes (the console and a CLI command) over one cap; one delivery every 10 s.
    const console = createBackgroundReplays({ context: context(), ratePerSecond: 0.1, runCap });
    const cli = createBackgroundReplays({ context: context(), ratePerSecond: 1000, runCap });
    try {
      await refusesPastTheCap(console, cli, queue, runCap);
    } finally {
      await console.close();
      await cli.close();
      await queue.close();
    }
  });

  async function refusesPastTheCap(
    console: BackgroundReplays,
    cli: BackgroundReplays,
    queue: Queue,
    runCap: { key: string; max: number },
  ): Promise<void> {
    const first = await replayBibs(console, queue, { actor: 'ops-1' });
    const second = await replayBibs(console, queue, { actor: 'ops-2', kind: 'recover' });

    const third = await tryReplayBibs(cli, queue, { actor: 'cli:root' });
    const recovery = await cli.startRecovery({
      route: 'another',
      filters: { action: 'bib' },
      actor: 'cli:root',
      institution: undefined,
      target: { queue, jobOptions: {}, takes: () => true },
      kind: 'recover',
    });

    for (const refused of [third, recovery]) {
      if (!('refused' in refused)) throw new Error('a third run started');
      expect(refused.refused.code).toBe('too_many_runs');
      expect(refused.refused.message).toContain('REPLAY_MAX_RUNNING is 2');
      expect(refused.refused.message).toMatch(
        new RegExp(`${first.replayId} \\(replay of route indexer by ops-1, started 20\\S+\\)`),
      );
      expect(refused.refused.message).toContain(`${second.replayId} (recovery of route indexer`);
    }
    expect(await redis.zcard(runCap.key)).toBe(2);
    // The refused recovery gave its route's lock back: a recovery of it later is not held up.
    expect(await redis.exists(recoveryLockKey(queue.name))).toBe(0);

    await console.close();
    expect(await redis.zcard(runCap.key)).toBe(0);
    const next = await tryReplayBibs(cli, queue, { actor: 'cli:root' });
    expect('refused' in next).toBe(false);
  }
});
