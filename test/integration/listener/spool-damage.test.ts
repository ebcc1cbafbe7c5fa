import { lstat, mkdtemp, open, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { decodeSpoolFrames } from '../../../src/events/spool/spool-frame';
import { getText, listenerOnPort, postSigned, waitFor } from '../../helpers/listener-on-port';
import type { ListenerOnPort } from '../../helpers/listener-on-port';
import { loanEventJson } from '../../helpers/loan-event';
import { startPrivateRedis } from '../../helpers/private-redis';
import type { PrivateRedis } from '../../helpers/private-redis';

jest.setTimeout(60_000);

/** The 5th record of 30 is damaged; the index of the record damaged first. */
const DAMAGED = 4;

/** Where a record's length field sits in its frame (after the 4-byte magic number). */
const LENGTH_AT = 4;

type Damage = (bytes: Buffer, frames: readonly { start: number; end: number }[]) => DamageDone;

/** What a damage changed, in the file's bytes: the records it touched and the file's new size. */
interface DamageDone {
  touched: number[];
  size?: number;
}

const at = (frames: readonly { start: number; end: number }[], i: number) => {
  const frame = frames[i];
  if (frame === undefined) throw new Error(`no record ${String(i)}`);
  return frame;
};

/** The frames a byte range overlaps. */
const overlapped = (frames: readonly { start: number; end: number }[], from: number, to: number) =>
  frames.flatMap((frame, i) => (frame.end > from && frame.start < to ? [i] : []));

const DAMAGES: [string, Damage][] = [
  [
    'one bit of a length flipped',
    (bytes, frames) => {
      const field = at(frames, DAMAGED).start + LENGTH_AT + 1;
      bytes.writeUInt8(bytes.readUInt8(field) ^ 0x01, field);
      return { touched: [DAMAGED] };
    },
  ],
  [
    'a length 100 short',
    (bytes, frames) => {
      const field = at(frames, DAMAGED).start + LENGTH_AT;
      bytes.writeUInt32BE(bytes.readUInt32BE(field) - 100, field);
      return { touched: [DAMAGED] };
    },
  ],
  [
    'a 4 KiB page of zeros',
    (bytes, frames) => {
      const page = Math.floor(at(frames, DAMAGED).start / 4096) * 4096;
      bytes.fill(0, page, page + 4096);
      return { touched: overlapped(frames, page, page + 4096) };
    },
  ],
  [
    'a payload byte flipped',
    (bytes, frames) => {
      const byte = at(frames, DAMAGED).end - 20;
      bytes.writeUInt8(bytes.readUInt8(byte) ^ 0xff, byte);
      return { touched: [DAMAGED] };
    },
  ],
  [
    'the tail cut mid-record',
    (bytes, frames) => ({ touched: [frames.length - 1], size: bytes.length - 40 }),
  ],
];

const ids = (from: number, count: number): string[] =>
  Array.from({ length: count }, (_, i) => `97${String(from + i).padStart(3, '0')}`);

describe('the listener spool, damaged on disk', () => {
  let redis: PrivateRedis;
  let dir: string;

  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis.close();
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spool-damage-'));
    await redis.start();
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Posts each event with Redis away: every one answered 200 `spooled`. */
  const spoolAll = async (running: ListenerOnPort, eventIds: readonly string[]) => {
    for (const id of eventIds) {
      const answer = await postSigned(running.port, loanEventJson(id));
      expect([answer.status, answer.body.status]).toEqual([200, 'spooled']);
    }
  };

  const segmentOf = async (): Promise<string> => {
    const names = (await readdir(dir)).filter((name) => name.endsWith('.spool'));
    expect(names).toHaveLength(1);
    return join(dir, names[0] ?? '');
  };

  const queuedIds = async (queueName: string): Promise<string[]> => {
    const queue = new Queue(queueName, { connection: { url: redis.url } });
    try {
      const jobs = await queue.getJobs(['waiting'], 0, -1, true);
      return jobs.map((job) => job.id ?? '');
    } finally {
      await queue.close();
    }
  };

  it.each(DAMAGES)(
    '%s: every undamaged event is queued, the damaged bytes kept in bad/ and said once',
    async (_, damage) => {
      const sent = ids(0, 30);
      const first = await listenerOnPort(redis.url, { SPOOL_DIR: dir });
      const queueName = first.listener.queueName;
      await redis.stop();
      await spoolAll(first, sent);
      await first.close();
      const path = await segmentOf();
      const bytes = await readFile(path);
      const { frames } = decodeSpoolFrames(bytes);
      expect(frames).toHaveLength(30);
      const { touched, size } = damage(bytes, frames);
      const damaged = bytes.subarray(0, size ?? bytes.length);
      await writeFile(path, damaged);

      await redis.start();
      const second = await listenerOnPort(redis.url, { SPOOL_DIR: dir, QUEUE_NAME: queueName });
      try {
        const expected = sent.filter((_id, i) => !touched.includes(i)).map((id) => `evt-${id}`);
        const queued = await queuedIds(queueName);
        expect(queued.length).toBe(expected.length);
        expect(queued).toEqual(expected);
        await expectKeptAndSaid(second, damaged, frames, touched);
        expect(second.depth()).toBe(0);
      } finally {
        await second.close();
      }
    },
  );

  it('bad/ cannot be written: every undamaged event is queued, and the damaged file stays on disk, said', async () => {
    const sent = ids(0, 30);
    const first = await listenerOnPort(redis.url, { SPOOL_DIR: dir });
    const queueName = first.listener.queueName;
    await redis.stop();
    await spoolAll(first, sent);
    await first.close();
    const path = await segmentOf();
    const bytes = await readFile(path);
    const { frames } = decodeSpoolFrames(bytes);
    const field = at(frames, DAMAGED).start + LENGTH_AT + 1;
    bytes.writeUInt8(bytes.readUInt8(field) ^ 0x01, field);
    await writeFile(path, bytes);
    // Where bad/ belongs, a file: nothing can be kept aside.
    await writeFile(join(dir, 'bad'), '');

    await redis.start();
    const second = await listenerOnPort(redis.url, { SPOOL_DIR: dir, QUEUE_NAME: queueName });
    try {
      const expected = sent.filter((_id, i) => i !== DAMAGED).map((id) => `evt-${id}`);
      expect(await queuedIds(queueName)).toEqual(expected);
      expect(await readFile(path)).toEqual(bytes);
      const said = second.listener.log.lines().filter((line) => line.level === 50);
      expect(said.map((line) => [line.msg, line.segment])).toEqual([
        [expect.stringContaining('could not be kept aside'), path],
        [expect.stringContaining('could not be kept aside'), path],
      ]);
      // New deliveries go to a file of their own, not to the one left.
      await redis.stop();
      await spoolAll(second, ids(30, 1));
      expect((await readdir(dir)).filter((name) => name.endsWith('.spool'))).toHaveLength(2);
    } finally {
      await second.close();
    }
  });

  it('damage while the listener runs: every undamaged event is queued, before and after it', async () => {
    const running = await listenerOnPort(redis.url, { SPOOL_DIR: dir });
    try {
      await redis.stop();
      await spoolAll(running, ids(0, 30));
      const path = await segmentOf();
      const { frames } = decodeSpoolFrames(await readFile(path));
      const field = at(frames, DAMAGED).start + LENGTH_AT + 1;
      const file = await open(path, 'r+');
      const byte = Buffer.alloc(1);
      await file.read(byte, 0, 1, field);
      byte.writeUInt8(byte.readUInt8(0) ^ 0x01, 0);
      await file.write(byte, 0, 1, field);
      await file.close();
      // Appended after the damage, to the same file.
      await spoolAll(running, ids(30, 10));

      await redis.start();
      await waitFor(() => running.listener.process.spool?.isEmpty() === true, 'the spool to empty');

      const expected = ids(0, 40)
        .filter((_id, i) => i !== DAMAGED)
        .map((id) => `evt-${id}`);
      const queued = await queuedIds(running.listener.queueName);
      expect(queued.length).toBe(expected.length);
      expect(queued).toEqual(expected);
      const kept = running.listener.log
        .lines()
        .filter((line) => String(line.msg).startsWith('spool: '));
      expect(kept).toEqual([
        expect.objectContaining({ msg: expect.stringContaining('unreadable bytes kept aside') }),
      ]);
    } finally {
      await running.close();
    }
  });
});

/** The fields of a line about unreadable bytes: pino's own, and where and how much. */
const SAID = [
  'level',
  'time',
  'pid',
  'hostname',
  'name',
  'msg',
  'segment',
  'offset',
  'bytes',
  'reason',
  'keptIn',
];

/**
 * The damaged range is in bad/ as it was on disk (mode 0600), counted by the metric, and said in
 * one line by offset and size, torn only at the file's tail; the spool's file is gone.
 */
async function expectKeptAndSaid(
  running: ListenerOnPort,
  damaged: Buffer,
  frames: readonly { start: number; end: number }[],
  touched: readonly number[],
): Promise<void> {
  const from = at(frames, touched[0] ?? 0).start;
  const to = Math.min(at(frames, touched.at(-1) ?? 0).end, damaged.length);
  const lines = running.listener.log
    .lines()
    .filter((line) => String(line.msg).includes('kept aside'));
  expect(lines).toHaveLength(1);
  const line = lines[0] ?? {};
  const tail = to === damaged.length;
  expect(line).toMatchObject({ offset: from, bytes: to - from, reason: tail ? 'torn' : 'damaged' });
  // Where and how much, never what: no field beyond these.
  expect(Object.keys(line).filter((key) => !SAID.includes(key))).toEqual([]);
  const keptIn = String(line.keptIn);
  expect(await readFile(keptIn)).toEqual(damaged.subarray(from, to));
  expect((await stat(keptIn)).mode & 0o777).toBe(0o600);
  expect((await lstat(join(keptIn, '..'))).mode & 0o777).toBe(0o700);
  expect(await getText(running.port, '/metrics')).toMatch(
    new RegExp(`^svcws_spool_unreadable_bytes_total ${String(to - from)}$`, 'm'),
  );
  expect((await readdir(join(keptIn, '../..'))).filter((name) => name.endsWith('.spool'))).toEqual(
    [],
  );
}
