import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { ConsoleConfig, loadConfig } from '../../../src/config';
import { sha256Hex } from '../../../src/console';
import { createLogger } from '../../../src/logger';
import { createConsoleProcess } from '../../../src/processes/console-process';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { TEST_HISTORY_KEY, fixtureEvent } from '../../helpers/history-events';
import { recordRun } from '../../helpers/record-run';
import { TEST_REDIS_URL, uniqueQueueName } from '../../helpers/redis';
import {
  HISTORY_CONSOLE_TOKENS,
  startConsoleWithHistory,
} from '../../helpers/console-with-history';
import type { ConsoleWithHistory } from '../../helpers/console-with-history';
import { captureLogger } from '../../helpers/capture-logger';
import { consoleApiCall } from '../../helpers/console-api-call';

const TOKENS = HISTORY_CONSOLE_TOKENS;

/** Asks again until the answer holds (a background replay ends when it ends). */
async function until<T>(ask: () => Promise<T>, holds: (answer: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await ask();
    if (holds(answer) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the console’s history API over a real PostgreSQL', () => {
  let running: ConsoleWithHistory;
  let redis: Redis;
  let queueName: string;
  let url: string;
  const loan = fixtureEvent('loan-returned');
  const other = { ...fixtureEvent('item-updated'), institution: { value: 'INST_B' } };
  const call = (token: string, path: string, body?: unknown) =>
    consoleApiCall(url, token)(path, body);
  const ids = (answer: { body: Record<string, unknown> }) =>
    (answer.body.items as { eventId: string }[]).map((item) => item.eventId).sort();

  const log = captureLogger();

  beforeAll(async () => {
    running = await startConsoleWithHistory({ logger: log.logger });
    ({ redis, queueName, url } = running);
    await running.record([loan, other], async (recorder) => {
      await recordRun(recorder, loan, { jobId: 'job-9', endedAt: new Date(Date.now() + 100) });
      await recorder.attempt({
        event: loan,
        route: 'loans',
        attempt: 1,
        startedAt: new Date(),
        endedAt: new Date(),
        outcome: 'failed',
        status: 500,
        error: 'destination is down',
        durationMs: 12,
      });
    });
  });

  afterAll(async () => {
    await running?.close();
  });

  it('finds an event by an item barcode and by a patron id (matched by its hash)', async () => {
    // The item event (INST_B) carries the same item barcode.
    expect(ids(await call(TOKENS.operator, '/events?barcode=39000123456'))).toEqual(
      [loan.id, other.id].sort(),
    );
    expect(
      ids(await call(TOKENS.operator, '/events?barcode=39000123456&institution=01SVC_INST')),
    ).toEqual([loan.id]);
    expect(ids(await call(TOKENS.operator, '/events?user=s1004217'))).toEqual([loan.id]);
    expect(ids(await call(TOKENS.operator, '/events'))).toEqual([loan.id, other.id].sort());
    const bad = await call(TOKENS.operator, '/events?outcome=lost');
    expect(bad.status).toBe(400);
    expect((await call(TOKENS.operator, '/events?route=loans')).status).toBe(400);
    expect((await call(TOKENS.operator, '/events?after=not-a-cursor')).status).toBe(400);
  });

  it('shows an event’s journey: arrival, queued, taken, each attempt with status and error, finished', async () => {
    const answer = await call(TOKENS.operator, `/events/01SVC_INST/${loan.id}`);
    expect(answer.status).toBe(200);
    const steps = answer.body.steps as { kind: string; status?: number; error?: string }[];
    expect(steps.map((step) => step.kind)).toEqual([
      'received',
      'queued',
      'taken',
      'attempt',
      'finished',
    ]);
    expect(steps[1]).toMatchObject({ by: 'listener', jobId: 'job-9' });
    expect(steps[2]).toMatchObject({ run: 1, jobId: 'job-9', endedAt: expect.any(String) });
    expect(steps[3]).toMatchObject({ status: 500, error: 'destination is down' });
    expect(steps[4]).toMatchObject({ outcome: 'completed', run: 1 });
    expect(JSON.stringify(answer.body.body)).toContain('S1004217');
    expect((await call(TOKENS.operator, '/events/01SVC_INST/nope')).status).toBe(404);
  });

  it('masks patron fields for a viewer, who cannot replay or forget', async () => {
    const answer = await call(TOKENS.viewer, `/events/01SVC_INST/${loan.id}`);
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body.body)).not.toContain('S1004217');
    const replay = await call(TOKENS.viewer, '/replays', { route: 'loans', filters: {} });
    expect(replay.status).toBe(403);
    expect((await call(TOKENS.viewer, '/forget', { user: 'S1004217' })).status).toBe(403);
  });

  it('keeps an institution-scoped operator to its own institution', async () => {
    expect(ids(await call(TOKENS.scoped, '/events'))).toEqual([other.id]);
    expect((await call(TOKENS.scoped, '/events?institution=01SVC_INST')).status).toBe(403);
    expect((await call(TOKENS.scoped, `/events/01SVC_INST/${loan.id}`)).status).toBe(403);
    const dry = await call(TOKENS.scoped, '/replays', { route: 'loans', filters: {} });
    expect(dry.body).toMatchObject({ dryRun: true, count: 1 });
  });

  it('replays by query: the dry run counts, the replay runs in the background, queues on the route and is audited', async () => {
    const filters = { barcode: '39000123456', institution: '01SVC_INST' };
    const dry = await call(TOKENS.operator, '/replays', { route: 'loans', filters });
    expect(dry.body).toMatchObject({ dryRun: true, count: 1, more: false });
    const response = await fetch(`${url}/api/v1/replays`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKENS.operator}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ route: 'loans', filters, dryRun: false }),
    });
    const started = (await response.json()) as { replayId: string; state: string };
    expect(response.status).toBe(202);
    expect(response.headers.get('location')).toBe(`/api/v1/replays/${started.replayId}`);
    expect(started).toMatchObject({ dryRun: false, route: 'loans', actor: 'ops' });
    const done = await until(
      () => call(TOKENS.operator, `/replays/${started.replayId}`),
      (answer) => answer.body.state !== 'running',
    );
    expect(done.body).toMatchObject({
      replayId: started.replayId,
      state: 'done',
      matched: 1,
      queued: 1,
      skipped: 0,
      errors: [],
      filters: { barcode: '39000123456', institution: '01SVC_INST' },
    });
    expect(typeof done.body.endedAt).toBe('string');
    const queue = new Queue(routeQueueName(queueName, 'loans'), { connection: redis });
    const jobs = await queue.getJobs(['waiting', 'delayed', 'prioritized']);
    expect(jobs.map((job) => (job.data as { id: string }).id)).toEqual([loan.id]);
    expect(jobs[0]?.id).toContain(`-replay-${started.replayId}`);
    await queue.close();
    const audit = await call(TOKENS.operator, '/audit');
    const rows = audit.body.items as { actor: string; action: string; target: string }[];
    const ofReplay = rows.filter(
      (row) => (row as { details?: { replayId?: string } }).details?.replayId === started.replayId,
    );
    expect(ofReplay.map((row) => row.action).sort()).toEqual(['replay', 'replay.start']);
    expect(ofReplay.find((row) => row.action === 'replay')).toMatchObject({
      actor: 'ops',
      target: 'loans',
      count: 1,
    });
    // Its one operator action line, once it ended, with how many it queued (the viewer's refused
    // replay of another test has its own line, a warning).
    expect(
      log
        .lines()
        .filter(
          (line) =>
            line.msg === 'console action' &&
            line.operatorAction === 'replay' &&
            line.outcome !== 'refused',
        ),
    ).toEqual([
      expect.objectContaining({
        level: 30,
        actor: 'ops',
        target: 'loans',
        outcome: 'done',
        count: 1,
      }),
    ]);
    // The replay named 01SVC_INST in its filters: not in INST_B's audit, nor its progress.
    expect((await call(TOKENS.scoped, '/audit')).body.items).toEqual([]);
    expect((await call(TOKENS.scoped, `/replays/${started.replayId}`)).status).toBe(403);
    expect((await call(TOKENS.operator, '/replays/no-such-replay')).status).toBe(404);
  });

  it('forgets a patron for a consortium operator only', async () => {
    expect((await call(TOKENS.scoped, '/forget', { user: 'S1004217' })).status).toBe(403);
    const report = await call(TOKENS.operator, '/forget', { user: 'S1004217' });
    expect(report.body).toMatchObject({ historyEvents: 1 });
    // The scoped operator's refusal has its line too (a warning); the forget done, this one.
    const forgot = log
      .lines()
      .filter((line) => line.operatorAction === 'forget' && line.outcome !== 'refused');
    expect(forgot).toEqual([
      expect.objectContaining({
        msg: 'console action',
        target: 'person',
        outcome: 'done',
        count: 1,
      }),
    ]);
    // The line names nobody: the audit keeps the person's keyed hash.
    expect(log.text()).not.toContain('S1004217');
    expect(ids(await call(TOKENS.operator, '/events?user=S1004217'))).toEqual([]);
  });
  it('documents the CLI’s filters and the replay and forget bodies in OpenAPI', async () => {
    const response = await fetch(`${url}/api/v1/openapi.json`);
    const document = (await response.json()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    const search = document.paths['/api/v1/events']?.get;
    const names = (search?.parameters as { name: string }[]).map((one) => one.name);
    expect(names).toEqual(expect.arrayContaining(['user', 'barcode', 'job-instance', 'after']));
    const replay = JSON.stringify(document.paths['/api/v1/replays']?.post);
    expect(replay).toContain('dryRun');
    expect(replay).toContain('replayId');
    expect(Object.keys(document.paths['/api/v1/replays']?.post?.responses ?? {})).toContain('202');
    expect(JSON.stringify(document.paths['/api/v1/replays/{id}']?.get)).toContain('matched');
    expect(JSON.stringify(document.paths['/api/v1/forget']?.post)).toContain('"user"');
  });
});

describe('the console with its history database down', () => {
  it('still serves live state, says PostgreSQL is down and answers history calls 503', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-console-pgdown-'));
    const redis = new Redis(TEST_REDIS_URL);
    await writeFile(
      join(dir, 'tokens.yaml'),
      `tokens:\n  - { name: ops, sha256: ${sha256Hex(TOKENS.operator)}, role: operator }\n`,
    );
    const env = {
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: uniqueQueueName('console-pgdown'),
      CONSOLE_TOKENS_FILE: join(dir, 'tokens.yaml'),
      // Port 9 (discard): nothing listens, the connection is refused.
      DATABASE_URL: 'postgres://postgres@127.0.0.1:9/test',
      HISTORY_KEY: TEST_HISTORY_KEY,
    };
    const consoleProcess = createConsoleProcess({
      config: loadConfig(ConsoleConfig, env),
      logger: createLogger({ level: 'silent', name: 'test' }),
      connection: redis,
      env,
    });
    const server = createServer(consoleProcess.app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/api/v1`;
    const get = (path: string) =>
      fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKENS.operator}` } });
    try {
      const overview = await get('/overview');
      expect(overview.status).toBe(200);
      expect(JSON.stringify(await overview.json())).toContain('"down"');
      const events = await get('/events');
      expect(events.status).toBe(503);
      expect(await events.json()).toMatchObject({ error: 'history_unavailable' });
      // The pages answer too, saying the history cannot be read (no error page).
      for (const path of ['/events', '/events/01SVC_INST/1', '/audit']) {
        const answer = await fetch(`${base.replace('/api/v1', '')}${path}`, {
          headers: { authorization: `Bearer ${TOKENS.operator}` },
        });
        expect([path, answer.status]).toEqual([path, 200]);
        expect(await answer.text()).toContain('The history cannot be read now: PostgreSQL');
      }
    } finally {
      server.close();
      await consoleProcess.close();
      redis.disconnect();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
