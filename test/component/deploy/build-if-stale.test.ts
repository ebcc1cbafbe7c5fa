import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildIsStale } from '../../../scripts/build-if-stale';

const ROOT = join(__dirname, '../../..');
const TSX_CLI = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const OUTPUTS = ['dist/bin/web.js', 'packages/client/dist/index.js'];

/** Writes `file` under `root` with the given modification time (seconds since the epoch). */
async function put(root: string, file: string, mtime: number, text = ''): Promise<void> {
  await mkdir(dirname(join(root, file)), { recursive: true });
  await writeFile(join(root, file), text);
  await utimes(join(root, file), mtime, mtime);
}

/** A tree shaped like the repository's: sources at `sourceTime`, and the outputs when given. */
async function tree(root: string, sourceTime: number, outputTime?: number): Promise<void> {
  await put(root, 'package.json', sourceTime, '{}');
  await put(root, 'src/bin/web.ts', sourceTime);
  await utimes(join(root, 'src/bin'), sourceTime, sourceTime);
  await utimes(join(root, 'src'), sourceTime, sourceTime);
  if (outputTime === undefined) return;
  for (const output of OUTPUTS) await put(root, output, outputTime);
}

describe('npm start builds only when dist/ is stale (scripts/build-if-stale.ts)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svcws-stale-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('skips the build when every output is newer than every source', async () => {
    await tree(dir, 1_000_000, 2_000_000);

    expect(buildIsStale(dir)).toBe(false);
  });

  it('builds when a source file is newer than the build', async () => {
    await tree(dir, 1_000_000, 2_000_000);
    await utimes(join(dir, 'src/bin/web.ts'), 3_000_000, 3_000_000);

    expect(buildIsStale(dir)).toBe(true);
  });

  it('builds when a source file was added or removed since the build (its directory changed)', async () => {
    await tree(dir, 1_000_000, 2_000_000);
    await utimes(join(dir, 'src/bin'), 3_000_000, 3_000_000);

    expect(buildIsStale(dir)).toBe(true);
  });

  it('builds when one output is missing (a fresh clone, or the client package never built)', async () => {
    await tree(dir, 1_000_000, 2_000_000);
    await rm(join(dir, 'packages/client/dist/index.js'));

    expect(buildIsStale(dir)).toBe(true);
  });

  it('run as npm runs it: builds a fresh tree, then not again, then again once a source changes', async () => {
    // A copy of the script in a temporary tree whose build only writes the outputs and counts
    // itself: the repository's own dist/ is never touched.
    await tree(dir, 1_000_000);
    await mkdir(join(dir, 'scripts'));
    await copyFile(join(ROOT, 'scripts/build-if-stale.ts'), join(dir, 'scripts/build-if-stale.ts'));
    await writeFile(
      join(dir, 'build.js'),
      `const fs = require('fs');
      for (const file of ${JSON.stringify(OUTPUTS)}) {
        fs.mkdirSync(require('path').dirname(file), { recursive: true });
        fs.writeFileSync(file, '');
      }
      fs.appendFileSync('builds.log', 'built\\n');`,
    );
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({ scripts: { build: 'node build.js' } }),
    );
    await utimes(join(dir, 'package.json'), 1_000_000, 1_000_000);
    const prestart = (): Promise<void> =>
      new Promise((resolve, reject) => {
        const args = [TSX_CLI, 'scripts/build-if-stale.ts'];
        execFile(process.execPath, args, { cwd: dir, timeout: 30_000 }, (error) =>
          error === null ? resolve() : reject(error),
        );
      });
    const builds = async (): Promise<number> =>
      (await readFile(join(dir, 'builds.log'), 'utf8')).split('\n').filter(Boolean).length;

    await prestart();
    expect(await builds()).toBe(1);
    await prestart();
    expect(await builds()).toBe(1);
    const later = Date.now() / 1000 + 60;
    await utimes(join(dir, 'src/bin/web.ts'), later, later);
    await prestart();
    expect(await builds()).toBe(2);
  });
});
