import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { getText, listenerOnPort, postSigned, waitFor } from '../../helpers/listener-on-port';
import type { Answer, ListenerOnPort } from '../../helpers/listener-on-port';
import { loanEventJson } from '../../helpers/loan-event';
import { startPrivateRedis } from '../../helpers/private-redis';
import type { PrivateRedis } from '../../helpers/private-redis';

jest.setTimeout(60_000);

/**
 * A 64 KiB tmpfs of the test's own: a real file system that fills up, whose last write before
 * ENOSPC comes back short. Mounting needs root (or CAP_SYS_ADMIN); where it is not permitted
 * these tests are skipped, and say so on the console: never silently.
 */
function mountSmallTmpfs(): string | undefined {
  const mountPoint = mkdtempSync(join(tmpdir(), 'spool-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', mountPoint], {
      stdio: 'pipe',
    });
    return mountPoint;
  } catch (error) {
    rmSync(mountPoint, { recursive: true, force: true });
    console.warn(`spool full-disk tests skipped: cannot mount a tmpfs here (${String(error)})`);
    return undefined;
  }
}

interface Sent {
  id: string;
  answer: Answer;
}

describe('the listener spool on a full file system', () => {
  const mountPoint = mountSmallTmpfs();
  const onTmpfs = mountPoint === undefined ? it.skip : it;
  const dir = join(mountPoint ?? tmpdir(), 'spool');
  let redis: PrivateRedis;

  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis.close();
    if (mountPoint === undefined) return;
    execFileSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
    await redis.start();
  });

  /** Posts events one after another with Redis away until the spool has refused five. */
  const fill = async (running: ListenerOnPort): Promise<Sent[]> => {
    const sent: Sent[] = [];
    for (let i = 0; sent.filter((one) => one.answer.status !== 200).length < 5; i += 1) {
      if (i > 500) throw new Error('the 64 KiB file system never filled up');
      const id = `98${String(i).padStart(4, '0')}`;
      sent.push({ id, answer: await postSigned(running.port, loanEventJson(id)) });
    }
    return sent;
  };

  const expectRefusedAsUnwritable = async (running: ListenerOnPort, sent: readonly Sent[]) => {
    const refused = sent.filter((one) => one.answer.status !== 200);
    expect(refused.map((one) => [one.answer.status, one.answer.body.error])).toEqual(
      refused.map(() => [503, 'spool_unwritable']),
    );
    // One file: a disk that refuses writes does not get a new one per refusal.
    expect((await readdir(dir)).filter((name) => name.endsWith('.spool'))).toHaveLength(1);
    const ready = await getText(running.port, '/readyz');
    expect(JSON.parse(ready)).toMatchObject({ status: 'unavailable' });
    expect(ready).toContain('could not be written');
  };

  const queuedIds = async (queueName: string): Promise<string[]> => {
    const queue = new Queue(queueName, { connection: { url: redis.url } });
    try {
      return (await queue.getJobs(['waiting'], 0, -1, true)).map((job) => job.id ?? '');
    } finally {
      await queue.close();
    }
  };

  const answered200 = (sent: readonly Sent[]) =>
    sent.filter((one) => one.answer.status === 200).map((one) => `evt-${one.id}`);

  onTmpfs(
    'answers 503 once the disk is full and queues every event answered 200, through a restart',
    async () => {
      const first = await listenerOnPort(redis.url, { SPOOL_DIR: dir });
      const queueName = first.listener.queueName;
      await redis.stop();
      const sent = await fill(first);
      expect(answered200(sent).length).toBeGreaterThan(10);
      await expectRefusedAsUnwritable(first, sent);
      await first.close();

      await redis.start();
      const second = await listenerOnPort(redis.url, { SPOOL_DIR: dir, QUEUE_NAME: queueName });
      try {
        expect(await queuedIds(queueName)).toEqual(answered200(sent));
        expect(second.depth()).toBe(0);
      } finally {
        await second.close();
      }
    },
  );

  onTmpfs(
    'is not ready while the spool cannot write, and ready again once the drain made room',
    async () => {
      const running = await listenerOnPort(redis.url, { SPOOL_DIR: dir });
      try {
        await redis.stop();
        const sent = await fill(running);
        await expectRefusedAsUnwritable(running, sent);

        await redis.start();
        await waitFor(() => running.depth() === 0, 'the spool to empty');
        await waitFor(
          async () => JSON.parse(await getText(running.port, '/readyz')).status === 'ready',
          '/readyz to answer ready',
        );
        expect(await queuedIds(running.listener.queueName)).toEqual(answered200(sent));
      } finally {
        await running.close();
      }
    },
  );
});
