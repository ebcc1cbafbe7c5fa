import { Redis } from 'ioredis';
import { captureLogger } from '../../helpers/capture-logger';
import { MAX_LINE_BYTES } from '../../../src/logger';
import { TEST_REDIS_URL, uniqueQueueName } from '../../helpers/redis';
import { errField, stackAtDebug } from '../../../src/err-field';

describe('log lines keep payloads out and stay under 16 KB', () => {
  it('logs a real ioredis error as { type, code, message }, never its args (the payload)', async () => {
    const redis = new Redis(TEST_REDIS_URL);
    const key = uniqueQueueName('log-safety');
    const payload = `PAYLOAD-${'p'.repeat(1024 * 1024)}`;
    try {
      await redis.set(key, 'a string');
      // WRONGTYPE: ioredis attaches { name, args } of the command to the error.
      const error = await redis.lpush(key, payload).catch((caught: unknown) => caught);
      expect((error as { command?: { args?: unknown[] } }).command?.args).toContain(payload);

      const log = captureLogger();
      log.logger.error({ err: error, eventId: 'e-1' }, 'event not queued');
      const [line] = log.lines();
      expect(log.text()).not.toContain('PAYLOAD-');
      expect(Buffer.byteLength(log.text())).toBeLessThan(MAX_LINE_BYTES);
      expect(line?.err).toEqual({
        type: 'ReplyError',
        code: 'WRONGTYPE',
        message: expect.stringMatching(/^WRONGTYPE/) as string,
      });
    } finally {
      await redis.del(key);
      redis.disconnect();
    }
  });

  it('cuts any line over 16 KB down to its short fields and names what it dropped', () => {
    const log = captureLogger();
    log.logger.warn({ eventId: 'e-2', body: 'b'.repeat(100000) }, 'something large');
    const text = log.text();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_LINE_BYTES);
    const [line] = log.lines();
    expect(line).toMatchObject({ level: 40, eventId: 'e-2', msg: 'something large' });
    expect(line?.truncated).toMatchObject({ dropped: ['body'] });
    expect(text).not.toContain('bbbbbbbbbb');
  });

  it('keeps a long error message short, its code from its cause, and no stack at error', () => {
    const log = captureLogger();
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    const error = new Error(`x${'y'.repeat(50000)}`, { cause });
    log.logger.error({ err: error }, 'failed');
    const [line] = log.lines();
    const err = line?.err as Record<string, unknown>;
    expect(Object.keys(err).sort()).toEqual(['code', 'message', 'type']);
    expect(err).toMatchObject({ type: 'Error', code: 'ECONNREFUSED' });
    expect(String(err.message).length).toBeLessThan(600);
    expect(String(err.message)).toContain('(50035 chars)');
    expect(Buffer.byteLength(log.text())).toBeLessThanOrEqual(MAX_LINE_BYTES);
  });

  it('gives every err the same three fields, and a stack only on a debug line of its own', () => {
    const atInfo = captureLogger();
    const atDebug = captureLogger('debug');
    const failure = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    for (const log of [atInfo, atDebug]) {
      log.logger.warn({ err: errField(failure) }, 'cannot reach Redis');
      log.logger.warn({ err: errField('a thrown string') }, 'odd');
      stackAtDebug(log.logger, { eventId: 'e-3' }, failure, 'event not queued');
    }

    expect(atInfo.lines().map((line) => line.err)).toEqual([
      { type: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:1' },
      { type: 'NotAnError', code: 'unknown', message: 'a thrown string' },
    ]);
    const debug = atDebug.lines().filter((line) => line.level === 20);
    expect(debug).toEqual([
      expect.objectContaining({
        msg: 'event not queued: the stack',
        eventId: 'e-3',
        err: expect.objectContaining({
          code: 'ECONNREFUSED',
          stack: expect.stringContaining('log-safety.test.ts') as string,
        }) as unknown,
      }),
    ]);
  });

  it('keeps the text a JSON parser quotes (a body’s bytes) out of a SyntaxError’s message', () => {
    const log = captureLogger();
    let thrown: unknown;
    try {
      JSON.parse('Ann Patron, 12 Main St');
    } catch (error) {
      thrown = error;
    }
    log.logger.error({ err: thrown }, 'parse failed');

    const [line] = log.lines();
    expect(line?.err).toMatchObject({ type: 'SyntaxError', code: 'unknown' });
    expect(log.text()).not.toContain('Ann Patron');
  });
});
