import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { getAnswerText, listenerOnPort, postSigned, waitFor } from '../../helpers/listener-on-port';
import type { Answer, ListenerOnPort } from '../../helpers/listener-on-port';
import { loanEventJson } from '../../helpers/loan-event';
import { startPrivateRedis } from '../../helpers/private-redis';
import type { PrivateRedis } from '../../helpers/private-redis';
import { smallDiskWrite } from '../../helpers/small-disk-write';
import type { SpoolFileWrite } from '../../../src/events/spool/spool-writer';

jest.setTimeout(60_000);

/** A full disk's size: 64 KiB. */
const DISK_BYTES = 64 * 1024;

/**
 * A 64 KiB tmpfs of the test's own: a real file system that fills up, whose last write before
 * ENOSPC comes back short. Mounting needs root (or CAP_SYS_ADMIN); where it is not permitted the
 * tests run on the small disk below only, and say so on the console.
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
    console.warn(
      `spool full-disk tests on a small disk of the test's only: cannot mount a tmpfs here (${String(error)})`,
    );
    return undefined;
  }
}

interface Sent {
  id: string;
  answer: Answer;
}

/**
 * Where the spool fills up: a real tmpfs where one can be mounted, and on every machine a disk of
 * the test's own — the spool's write passed in (spool-writer.ts's SpoolFileWrite) taking only the
 * room left under the directory, short before full, ENOSPC once full (small-disk-write.ts).
 */
interface FullDisk {
  readonly name: string;
  readonly root: string;
  readonly write?: SpoolFileWrite;
  readonly release: () => void;
}

function fullDisks(): FullDisk[] {
  const stubRoot = mkdtempSync(join(tmpdir(), 'spool-small-disk-'));
  const small: FullDisk = {
    name: 'a 64 KiB disk at the spool writer’s boundary',
    root: stubRoot,
    write: smallDiskWrite(join(stubRoot, 'spool'), DISK_BYTES),
    release: () => rmSync(stubRoot, { recursive: true, force: true }),
  };
  const mountPoint = mountSmallTmpfs();
  if (mountPoint === undefined) return [small];
  const tmpfs: FullDisk = {
    name: 'a 64 KiB tmpfs',
    root: mountPoint,
    release: () => {
      execFileSync('umount', [mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    },
  };
  return [tmpfs, small];
}

describe.each(fullDisks())('the listener spool on a full file system: $name', (disk) => {
  const dir = join(disk.root, 'spool');
  const listenerOnDisk = (url: string, env: Record<string, string>) =>
    listenerOnPort(url, env, disk.write);
  let redis: PrivateRedis;

  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis.close();
    disk.release();
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
    const ready = await getAnswerText(running.port, '/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.text)).toMatchObject({ status: 'unavailable' });
    expect(ready.text).toContain('could not be written');
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

  it('answers 503 once the disk is full and queues every event answered 200, through a restart', async () => {
    const first = await listenerOnDisk(redis.url, { SPOOL_DIR: dir });
    const queueName = first.listener.queueName;
    await redis.stop();
    const sent = await fill(first);
    expect(answered200(sent).length).toBeGreaterThan(10);
    await expectRefusedAsUnwritable(first, sent);
    await first.close();

    await redis.start();
    const second = await listenerOnDisk(redis.url, { SPOOL_DIR: dir, QUEUE_NAME: queueName });
    try {
      expect(await queuedIds(queueName)).toEqual(answered200(sent));
      expect(second.depth()).toBe(0);
    } finally {
      await second.close();
    }
  });

  it('is not ready while the spool cannot write, and ready again once the drain made room', async () => {
    const running = await listenerOnDisk(redis.url, { SPOOL_DIR: dir });
    try {
      await redis.stop();
      const sent = await fill(running);
      await expectRefusedAsUnwritable(running, sent);

      await redis.start();
      await waitFor(() => running.depth() === 0, 'the spool to empty');
      let ready = { status: 0, text: '' };
      await waitFor(async () => {
        ready = await getAnswerText(running.port, '/readyz');
        return (JSON.parse(ready.text) as { status: string }).status === 'ready';
      }, '/readyz to answer ready');
      expect(ready.status).toBe(200);
      expect(await queuedIds(running.listener.queueName)).toEqual(answered200(sent));
    } finally {
      await running.close();
    }
  });
});
