import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pipeCountingBytes } from '../src';

describe('atomic file writes (pipeCountingBytes to a path)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'atomic-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives two concurrent runs of the same job a temporary file each, and the target one whole body', async () => {
    const target = join(dir, 'TOTAL.xml');
    const first = new PassThrough();
    const second = new PassThrough();
    // Same tag, as two runs of one BullMQ job after a lost lock.
    const runs = [
      pipeCountingBytes(first, target, { temporaryTag: 'job-1' }),
      pipeCountingBytes(second, target, { temporaryTag: 'job-1' }),
    ];
    first.write('A'.repeat(1000));
    second.write('B'.repeat(1000));
    await new Promise((resolve) => setTimeout(resolve, 50));

    const during = (await readdir(dir)).sort();
    first.end('A'.repeat(1000));
    second.end('B'.repeat(1000));
    await Promise.all(runs);

    expect(during).toHaveLength(2);
    expect(during.every((name) => /^\.TOTAL\.xml\.job-1\.[0-9a-f]{12}\.part$/.test(name))).toBe(
      true,
    );
    expect(await readdir(dir)).toEqual(['TOTAL.xml']);
    const text = await readFile(target, 'utf8');
    expect(['A'.repeat(2000), 'B'.repeat(2000)]).toContain(text);
  });

  it('removes its temporary file and leaves no target when the source fails', async () => {
    const target = join(dir, 'TOTAL.xml');
    const source = new PassThrough();
    const run = pipeCountingBytes(source, target);
    source.write('partial');
    await new Promise((resolve) => setTimeout(resolve, 20));
    source.destroy(new Error('cut off'));

    await expect(run).rejects.toThrow('cut off');
    expect(await readdir(dir)).toEqual([]);
  });
});
