import { Redis } from 'ioredis';
import { HISTORY_OFF } from '../../../src/cli/open-cli-history';
import { runCli } from '../../../src/cli/run-cli';
import { createHistoryRecorder } from '../../../src/history/create-history-recorder';
import { createHistoryWriter } from '../../../src/history/create-history-writer';
import { deriveHistoryKeys } from '../../../src/history/history-keys';
import { historyStreamKey } from '../../../src/history/history-stream-key';
import { TEST_DATABASE_URL, dropSchema, uniqueSchema } from '../../helpers/history-database';
import { TEST_HISTORY_KEY, deliveredAttempt, fixtureEvent } from '../../helpers/history-events';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { openHistoryDatabase } from '../../../src/history/open-history-database';
import { freePort } from '../../helpers/free-port';
import { captureIo } from './cli-io-capture';

describe('npm run events -- history', () => {
  const schema = uniqueSchema('cli');
  const queueName = uniqueQueueName('history-cli');
  const env = {
    DATABASE_URL: TEST_DATABASE_URL,
    HISTORY_KEY: TEST_HISTORY_KEY,
    HISTORY_SCHEMA: schema,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_NAME: queueName,
  };

  afterAll(async () => {
    await dropSchema(schema);
    await obliterateQueue(queueName);
    const redis = new Redis(TEST_REDIS_URL);
    await redis.del(historyStreamKey(queueName));
    redis.disconnect();
  });

  it('says history is off without DATABASE_URL', async () => {
    const io = captureIo({ REDIS_URL: TEST_REDIS_URL });
    expect(await runCli(['history', 'search'], io)).toBe(1);
    expect(io.stderr()).toContain('History is off');
    expect(io.stderr().trim()).toBe(HISTORY_OFF);
    expect(HISTORY_OFF).toContain('DATABASE_URL');
  });

  it('fails naming DATABASE_URL and where it points when the database does not answer', async () => {
    const port = await freePort();
    const unreachable = `postgres://postgres:not-shown@127.0.0.1:${String(port)}/test`;
    for (const command of [['search'], ['show', '7710340060000561'], ['set-aside']]) {
      const io = captureIo({ ...env, DATABASE_URL: unreachable });
      expect(await runCli(['history', ...command], io)).toBe(1);
      expect(io.stderr()).toContain(
        `cannot reach the history database at 127.0.0.1:${String(port)}/test (DATABASE_URL): connect ECONNREFUSED`,
      );
      expect(io.stderr()).not.toContain('not-shown');
    }
  });

  it('migrates, then searches, shows and forgets', async () => {
    const migrate = captureIo(env);
    expect(await runCli(['history', 'migrate'], migrate)).toBe(0);
    expect(migrate.stdout()).toContain('Applied versions 1');

    const redis = new Redis(TEST_REDIS_URL);
    const db = await openHistoryDatabase({ url: TEST_DATABASE_URL, schema });
    try {
      const recorder = createHistoryRecorder({
        redis,
        streamKey: historyStreamKey(queueName),
        historyKey: TEST_HISTORY_KEY,
        bodies: 'all',
        maxBacklog: 100,
      });
      await recorder.event(fixtureEvent('loan-returned'));
      await recorder.event(fixtureEvent('bib-updated'));
      if (db === undefined) throw new Error('no database');
      await createHistoryWriter({ redis, db, streamKey: historyStreamKey(queueName) }).drainOnce();
    } finally {
      redis.disconnect();
      await db?.close();
    }

    const search = captureIo(env);
    expect(await runCli(['history', 'search', '--user', 'S1004217', '--json'], search)).toBe(0);
    const page = JSON.parse(search.stdout()) as { items: { eventId: string }[] };
    expect(page.items.map((item) => item.eventId)).toEqual(['5522190040000561']);

    // The closing count, through countOf: singular for one.
    const countLine = async (...filters: string[]): Promise<string | undefined> => {
      const io = captureIo(env);
      expect(await runCli(['history', 'search', ...filters], io)).toBe(0);
      return io.stdout().trim().split('\n').at(-1);
    };
    expect(await countLine('--id', '5522190040000561')).toBe('1 event.');
    expect(await countLine()).toBe('2 events.');
    expect(await countLine('--barcode', 'no-such-barcode')).toBe('0 events.');

    const show = captureIo(env);
    expect(await runCli(['history', 'show', '7710340060000561'], show)).toBe(0);
    expect(show.stdout()).toContain('received');

    const bad = captureIo(env);
    expect(await runCli(['history', 'search', '--outcome', 'lost'], bad)).toBe(2);

    const forget = captureIo(env);
    expect(await runCli(['history', 'forget', '--user', 'S1004217'], forget)).toBe(0);
    expect(forget.stdout()).toContain('history: 1 event');
    const after = captureIo(env);
    await runCli(['history', 'search', '--user', 'S1004217', '--json'], after);
    expect(JSON.parse(after.stdout())).toEqual({ items: [] });
    // Each search by person is in the audit, the person by hash only.
    const audit = await openHistoryDatabase({ url: TEST_DATABASE_URL, schema });
    try {
      const rows = await audit?.query<{ actor: string; target: string }>(
        `SELECT actor, target FROM audit WHERE action = 'history.search.person'`,
      );
      const hash = deriveHistoryKeys(TEST_HISTORY_KEY).hashPerson('S1004217');
      expect(rows?.rows).toEqual([
        { actor: expect.stringMatching(/^cli:/) as unknown, target: hash },
        { actor: expect.stringMatching(/^cli:/) as unknown, target: hash },
      ]);
    } finally {
      await audit?.close();
    }
  });

  it('lists the records set aside, newest first, as lines and as JSON', async () => {
    expect(await runCli(['history', 'migrate'], captureIo(env))).toBe(0);
    const redis = new Redis(TEST_REDIS_URL);
    const db = await openHistoryDatabase({ url: TEST_DATABASE_URL, schema });
    try {
      if (db === undefined) throw new Error('no database');
      const streamKey = historyStreamKey(queueName);
      const recorder = createHistoryRecorder({
        redis,
        streamKey,
        historyKey: TEST_HISTORY_KEY,
        bodies: 'all',
        maxBacklog: 100,
      });
      // Refused by PostgreSQL for its data: set aside.
      await recorder.attempt(
        deliveredAttempt(fixtureEvent('bib-updated', { id: 'refused-attempt' }), 1),
      );
      await createHistoryWriter({ redis, db, streamKey }).drainOnce();
    } finally {
      redis.disconnect();
      await db?.close();
    }

    const lines = captureIo(env);
    expect(await runCli(['history', 'set-aside'], lines)).toBe(0);
    expect(lines.stdout()).toMatch(
      /attempt {2}01SVC_INST {2}refused-attempt {2}22003 {2}.*integer/,
    );
    expect(lines.stdout()).toContain('1 records set aside.');

    const json = captureIo(env);
    expect(await runCli(['history', 'set-aside', '--json', '--limit', '5'], json)).toBe(0);
    const page = JSON.parse(json.stdout()) as { items: { eventId: string; sqlstate: string }[] };
    expect(page.items).toEqual([
      expect.objectContaining({ eventId: 'refused-attempt', sqlstate: '22003' }),
    ]);

    const bad = captureIo(env);
    expect(await runCli(['history', 'set-aside', '--before', 'yesterday'], bad)).toBe(2);
  });
});
