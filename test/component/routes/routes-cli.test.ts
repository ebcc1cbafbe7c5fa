import type { RedisClient } from '../../../src/redis/redis-client';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { runCli } from '../../../src/cli/run-cli';
import { createHistoryWriter, historyStreamKey } from '../../../src/history';
import { TEST_DATABASE_URL, openTestHistory } from '../../helpers/history-database';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { captureIo } from '../cli/cli-io-capture';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startHttpReceiver } from './support/http-receiver';
import type { HttpReceiver } from './support/http-receiver';
import { eventually, routeEvent, silentLogger } from './support/route-events';
import { captureLogger } from '../../helpers/capture-logger';
import type { CapturedLogger } from '../../helpers/capture-logger';

const ROUTES = `
routes:
  - { name: indexer, match: { event: [LOAN_CREATED] }, to: { http: { url: "\${HOOK}" } }, retry: { attempts: 3, backoffMs: 50 } }
  - { name: bibs, match: { action: [bib] }, to: { amqp: { url: "amqp://app:\${MQ_PASSWORD}@mq.internal:5672", exchange: ex } } }
  - { name: loans, match: { action: [loan], event: [LOAN_CREATED] }, to: { file: { dir: "\${ARCHIVE}/{action}" } } }
`;

describe('npm run events -- routes …', () => {
  let dir: string;
  let receiver: HttpReceiver;
  let routing: Routing;
  let connection: RedisClient;
  let env: Record<string, string>;
  let cliLog: CapturedLogger;

  beforeEach(async () => {
    cliLog = captureLogger();
    dir = await mkdtemp(join(tmpdir(), 'svc-routes-cli-'));
    receiver = await startHttpReceiver(422);
    const queueName = uniqueQueueName('routes-cli');
    env = {
      ROUTES_FILE: join(dir, 'routes.yaml'),
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: queueName,
      HOOK: receiver.url,
      MQ_PASSWORD: 'pw-not-shown',
      ARCHIVE: join(dir, 'archive'),
    };
    await writeFile(env.ROUTES_FILE ?? '', ROUTES);
    const { routes } = parseRoutesFile(ROUTES, env);
    // Only the indexer delivers here; the bibs route needs no broker for these commands.
    connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    routing = startRouting({
      connection,
      routes: routes.filter((route) => route.name === 'indexer'),
      redisUrl: TEST_REDIS_URL,
      queueName,
      logger: silentLogger,
    });
  });
  afterEach(async () => {
    await routing.close();
    await closeRedis(connection);
    for (const queue of routing.queues.values()) await obliterateQueue(queue.name);
    await obliterateQueue(`${env.QUEUE_NAME ?? ''}-route-bibs`);
    await obliterateQueue(`${env.QUEUE_NAME ?? ''}-route-loans`);
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function run(...argv: string[]): Promise<{ status: number; out: string; err: string }> {
    const io = { ...captureIo(env), logger: cliLog.logger };
    const status = await runCli(argv, io);
    return { status, out: io.stdout(), err: io.stderr() };
  }

  it('lists routes with their counts, pauses and resumes one, and replays its failed delivery', async () => {
    const event = routeEvent();
    await routing.fanOut(event, jobIdForEvent(event.id));
    const indexer = routing.queues.get('indexer');
    await eventually(async () => (await indexer?.getFailedCount()) === 1, 'the refused delivery');

    let result = await run('routes');
    expect(result.status).toBe(0);
    // The URL is all `${HOOK}`: a value from the environment is shown as ***, like every secret.
    expect(result.out).toContain('indexer  http  POST ***  ');
    expect(result.out).not.toContain(receiver.url);
    expect(result.out).toContain('waiting 0  active 0  delayed 0  failed 1\n');
    await eventually(
      async () =>
        (await run('routes')).out.includes('last hour: delivered 0  retrying 0  failed 1'),
      'the refused attempt in the figures',
    );
    expect(result.out).toContain('bibs  amqp  amqp://app:***@mq.internal:5672 exchange ex');
    expect(result.out).not.toContain('pw-not-shown');

    expect((await run('routes', 'pause', 'indexer')).out).toBe(
      '✓ route indexer paused (0 waiting).',
    );
    expect((await run('routes')).out).toContain('PAUSED');
    expect(await indexer?.isPaused()).toBe(true);

    receiver.answer(200);
    result = await run('routes', 'replay', 'indexer', event.id);
    expect(result).toMatchObject({ status: 0 });
    expect(result.out).toContain('1 of 1 failed deliveries replayed on route indexer.');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.accepted).toEqual([]);
    await run('routes', 'resume', 'indexer');
    await eventually(() => receiver.accepted.length === 1, 'the replayed delivery after resume');
    expect(receiver.accepted).toEqual([event.id]);
    await eventually(
      async () => (await run('routes', '--json')).out.includes('"delivered": 1'),
      'the replayed delivery in the figures',
    );
  });

  it('records pause, resume and replay in the history audit with the OS user when history is on', async () => {
    const event = routeEvent();
    await routing.fanOut(event, jobIdForEvent(event.id));
    const indexer = routing.queues.get('indexer');
    await eventually(async () => (await indexer?.getFailedCount()) === 1, 'the refused delivery');
    const streamKey = historyStreamKey(env.QUEUE_NAME ?? '');
    // History off: the commands work as before and keep nothing.
    expect((await run('routes', 'pause', 'indexer')).status).toBe(0);
    expect(await connection.xlen(streamKey)).toBe(0);

    const history = await openTestHistory('routes_audit');
    try {
      env = { ...env, DATABASE_URL: TEST_DATABASE_URL, HISTORY_KEY: 'k'.repeat(40) };
      expect((await run('routes', 'resume', 'indexer')).status).toBe(0);
      expect((await run('routes', 'pause', 'indexer')).status).toBe(0);
      expect((await run('routes', 'replay', 'indexer', '--all')).status).toBe(0);
      await createHistoryWriter({ redis: connection, db: history.db, streamKey }).drainOnce();
      const rows = await history.db.query<{
        actor: string;
        action: string;
        target: string;
        count: number | null;
      }>('SELECT actor, action, target, count FROM audit ORDER BY at, record_id');
      const actor = `cli:${userInfo().username}`;
      expect(rows.rows).toEqual([
        { actor, action: 'resume', target: 'route indexer', count: null },
        { actor, action: 'pause', target: 'route indexer', count: null },
        { actor, action: 'replay', target: 'route indexer', count: 1 },
      ]);
      // One line per action, history on or off, through the same helper as the audit row.
      const lines = cliLog.lines().filter((line) => line.msg === 'cli action');
      const waiting = expect.any(Number) as number;
      expect(lines).toEqual(
        [
          ['pause', waiting],
          ['resume', waiting],
          ['pause', waiting],
          ['replay', 1],
        ].map(([action, count]) =>
          expect.objectContaining({
            level: 30,
            actor,
            operatorAction: action,
            target: 'route indexer',
            outcome: 'done',
            count,
          }),
        ),
      );
    } finally {
      await connection.del(streamKey);
      await history.close();
    }
  });

  it('tests a sample against a route without sending it', async () => {
    const matches = await run('routes', 'test', 'indexer', '--sample', 'loan');
    expect(matches.status).toBe(0);
    expect(matches.out).toContain('destination: http  POST ***\naddress: POST ***\n');
    expect(matches.out).toMatch(/idempotency-key: \d+/);
    expect(matches.out).toMatch(/✓ event \d+ \(loan\) matches route indexer/);
    const bib = await run('routes', 'test', 'bibs', '--sample', 'loan');
    expect(bib.status).toBe(1);
    expect(bib.out).toContain('does not match route bibs');
    expect(receiver.requests()).toBe(0);
  });

  it('tests the loan sample against a route on action [loan]: the canonical action of a loan', async () => {
    const result = await run('routes', 'test', 'loans', '--sample', 'loan');

    expect(result.status).toBe(0);
    expect(result.out).toMatch(/✓ event (\d+) \(loan\) matches route loans/);
    const date = new Date().toISOString().slice(0, 10);
    expect(result.out).toContain(`address: append to ***${join('/', 'loan', `${date}.jsonl`)}`);
    expect(result.out).toMatch(
      /body: \{"id":"\d+","action":"loan",.*"event":\{"value":"LOAN_CREATED"/,
    );
    for (const kind of ['request', 'bib', 'item', 'user', 'notification', 'job_end']) {
      const other = await run('routes', 'test', 'loans', '--sample', kind);
      expect(other.status).toBe(1);
      expect(other.out).toContain(`(${kind}) does not match route loans`);
    }
  });

  it.each([['loan-returned.json'], ['loan-returned.xml'], ['request-created.xml']])(
    'tests a body from --file (%s) the way the listener would read it',
    async (file) => {
      const fixture = join(__dirname, '../../fixtures/events', file);
      const body = await readFile(fixture, 'utf8');
      const id = /"id": "(\d+)"|<id>(\d+)<\/id>/.exec(body);
      const eventId = id?.[1] ?? id?.[2] ?? '';

      const result = await run('routes', 'test', 'loans', '--file', fixture);

      if (file.startsWith('loan')) {
        // LOAN_RETURNED: the action matches, the event code does not.
        expect(result.status).toBe(1);
        expect(result.out).toContain(`✗ event ${eventId} (loan) does not match route loans`);
        const all = await run('routes', 'test', 'indexer', '--file', fixture);
        expect(all.out).toContain(`✗ event ${eventId} (loan) does not match route indexer`);
      } else {
        expect(result.out).toContain(`✗ event ${eventId} (request) does not match route loans`);
      }
      const created = join(dir, `created.${file.endsWith('.xml') ? 'xml' : 'json'}`);
      await writeFile(created, body.replaceAll('LOAN_RETURNED', 'LOAN_CREATED'));
      const matched = await run('routes', 'test', 'loans', '--file', created);
      expect(matched.status).toBe(file.startsWith('loan') ? 0 : 1);
      if (file.startsWith('loan')) {
        expect(matched.out).toContain(`✓ event ${eventId} (loan) matches route loans`);
        expect(matched.out).toContain('"item_barcode":"39000123456"');
      }
    },
  );

  it('answers 2 for an unknown route or a wrong command line', async () => {
    expect((await run('routes', 'pause', 'nope')).status).toBe(2);
    expect((await run('routes', 'replay', 'indexer')).status).toBe(2);
    expect((await run('routes', 'test', 'indexer')).status).toBe(2);
  });
});
