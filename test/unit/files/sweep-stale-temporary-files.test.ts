import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepStaleTemporaryFiles } from '../../../src/files/sweep-stale-temporary-files';

describe('sweepStaleTemporaryFiles', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'sweep-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('removes .part files untouched for longer than the limit, at any depth, and nothing else', async () => {
    const dir = join(root, 'INST', 'S7781', '42');
    await mkdir(dir, { recursive: true });
    const stale = join(dir, '.TOTAL.xml.evt-1.0123456789ab.part');
    const fresh = join(dir, '.TOTAL.xml.evt-2.ba9876543210.part');
    const kept = join(dir, 'TOTAL.xml');
    const oldButNotOurs = join(dir, 'notes.part.txt');
    for (const file of [stale, fresh, kept, oldButNotOurs]) await writeFile(file, 'x');
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const file of [stale, kept, oldButNotOurs]) await utimes(file, hourAgo, hourAgo);

    const removed = await sweepStaleTemporaryFiles(root, 600_000);

    expect(removed).toEqual([stale]);
    expect((await readdir(dir)).sort()).toEqual(
      ['.TOTAL.xml.evt-2.ba9876543210.part', 'TOTAL.xml', 'notes.part.txt'].sort(),
    );
  });

  it('sweeps nothing when the directory does not exist yet', async () => {
    expect(await sweepStaleTemporaryFiles(join(root, 'missing'), 1)).toEqual([]);
  });
});
