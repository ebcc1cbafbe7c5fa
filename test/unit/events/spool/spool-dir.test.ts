import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSpool } from '../../../../src/events/spool/create-spool';
import type { SpoolEntry } from '../../../../src/events/spool/spool-entry';
import { SpoolDirError } from '../../../../src/events/spool/spool-dir-error';
import { SpoolError } from '../../../../src/events/spool/spool-error';
import { captureLogger } from '../../../helpers/capture-logger';

const entry = (jobId: string): SpoolEntry => ({
  kind: 'job',
  spooledAt: Date.now(),
  queue: 'q',
  name: 'loan',
  jobId,
  data: { id: jobId, patron: 'someone' },
  opts: { jobId },
});

const VICTIM_TEXT = 'a file of someone else, not the spool\n';

describe('the spool directory and its files', () => {
  let base: string;
  let victim: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'spool-dir-'));
    victim = join(base, 'victim.txt');
    await writeFile(victim, VICTIM_TEXT, { mode: 0o644 });
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  const open = (dir: string, segmentBytes?: number) =>
    openSpool({
      dir,
      maxBytes: 1_000_000,
      logger: captureLogger().logger,
      ...(segmentBytes === undefined ? {} : { segmentBytes }),
    });

  it('creates a missing directory with mode 0700', async () => {
    const dir = join(base, 'a', 'spool');

    await open(dir).close();

    expect((await lstat(dir)).mode & 0o777).toBe(0o700);
  });

  it('refuses an existing directory others may enter (0777), naming the path and the mode, and writes nothing there', async () => {
    const dir = join(base, 'open');
    await mkdir(dir);
    await chmod(dir, 0o777);

    expect(() => open(dir)).toThrow(
      new SpoolDirError(
        'spool_dir_mode',
        dir,
        'has mode 0777, not 0700: only its owner may enter it (chmod 700 ' + dir + ')',
      ),
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a directory owned by another user (0700, but not ours), naming the path and both uids', async () => {
    // The tests run as root, who may give a directory away (to nobody, 65534); as another user
    // the chown itself fails, EPERM.
    const dir = join(base, 'theirs');
    await mkdir(dir, { mode: 0o700 });
    await chown(dir, 65_534, 65_534);

    expect(() => open(dir)).toThrow(
      expect.objectContaining({
        code: 'spool_dir_not_owned',
        path: dir,
        message: `spool: ${dir} is owned by uid 65534, not by this process's uid ${String(process.getuid?.())}`,
      }),
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a SPOOL_DIR that is a symbolic link', async () => {
    const real = join(base, 'real');
    await mkdir(real, { mode: 0o700 });
    const link = join(base, 'link');
    await symlink(real, link);

    expect(() => open(link)).toThrow(
      expect.objectContaining({ code: 'spool_dir_symlink', path: link }),
    );
  });

  it('refuses to start on a symbolic link where a spool file belongs, and leaves its target alone', async () => {
    const dir = join(base, 'spool');
    await mkdir(dir, { mode: 0o700 });
    const segment = join(dir, '000000000001.spool');
    await symlink(victim, segment);

    expect(() => open(dir)).toThrow(
      expect.objectContaining({ code: 'spool_file_symlink', path: segment }),
    );
    expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
    // The lock is released: the directory is not held by a process that did not start.
    expect(await readdir(dir)).toEqual(['000000000001.spool']);
  });

  it("does not append through a symbolic link planted at the next file's path: the write fails (503), the target is untouched", async () => {
    const dir = join(base, 'spool');
    // One record per file: each append begins a new one.
    const spool = open(dir, 1);
    try {
      await spool.append(entry('one'));
      await symlink(victim, join(dir, '000000000002.spool'));

      await expect(spool.append(entry('two'))).rejects.toThrow(SpoolError);
      expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
      expect(spool.stats().depth).toBe(1);
    } finally {
      await spool.close();
    }
  });
});
