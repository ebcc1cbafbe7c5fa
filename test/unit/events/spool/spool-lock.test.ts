import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireSpoolLock, SpoolLockedError } from '../../../../src/events/spool/spool-lock';

describe('the spool lock', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spool-lock-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is held by this process until released, and refused meanwhile', async () => {
    const lock = acquireSpoolLock(dir);
    expect(await readFile(join(dir, 'spool.lock'), 'utf8')).toMatch(
      new RegExp(`^${String(process.pid)} \\d+\\n$`),
    );
    expect(() => acquireSpoolLock(dir)).toThrow(SpoolLockedError);

    lock.release();
    acquireSpoolLock(dir).release();
  });

  it('takes over the lock of a process that is gone (killed with SIGKILL)', async () => {
    // A pid that existed and no longer does: a child that has exited.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    await writeFile(join(dir, 'spool.lock'), `${String(gone)} 0\n`);

    const lock = acquireSpoolLock(dir);

    expect(await readFile(join(dir, 'spool.lock'), 'utf8')).toMatch(
      new RegExp(`^${String(process.pid)} `),
    );
    lock.release();
  });

  it('takes over a lock with our pid but another start time: an earlier life of a container', async () => {
    await writeFile(join(dir, 'spool.lock'), `${String(process.pid)} 1000\n`);

    acquireSpoolLock(dir).release();
  });

  it('refuses a lock held by another live process, naming it', async () => {
    await writeFile(join(dir, 'spool.lock'), `${String(process.ppid)} 0\n`);

    expect(() => acquireSpoolLock(dir)).toThrow(
      `spool directory ${dir} is in use by process ${String(process.ppid)}`,
    );
  });
});
