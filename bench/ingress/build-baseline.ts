import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

/**
 * BENCH_BASELINE=<git ref>: the listener's src/ at that ref, compiled beside the current one
 * (`.tmp/bench-baseline/<ref>`), so a before/after comparison runs in the same rounds, under the
 * same load from whatever else the machine is doing. Returns the compiled src/bin/web.js.
 * `harness`: files of the current tree (paths from the repository root, such as the bench's own
 * servers) compiled beside that src/, so they run the baseline's code the way they run ours; the
 * compiled file of `harness/x.ts` is `<baselineBuildDir(ref)>/harness/x.js`.
 */
export function buildBaseline(ref: string, harness: readonly string[] = []): string {
  const dir = baselineDir(ref);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // src/ as a tar is past execFileSync's 1 MiB default buffer (ENOBUFS) since src/ grew.
  const archive = execFileSync('git', ['archive', '--format=tar', ref, 'src'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  for (const file of harness) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(dir, file));
  }
  const config = path.join(dir, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: path.join(ROOT, 'tsconfig.json'),
      compilerOptions: {
        rootDir: dir,
        outDir: path.join(dir, 'build'),
        types: ['node'],
        declaration: false,
        sourceMap: false,
        paths: {},
      },
      include: [path.join(dir, 'src'), ...harness.map((file) => path.join(dir, file))],
    }),
  );
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', config], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  return path.join(dir, 'build/src/bin/web.js');
}

function baselineDir(ref: string): string {
  return path.join(ROOT, '.tmp/bench-baseline', ref.replace(/[^A-Za-z0-9._-]/g, '_'));
}

/** Where buildBaseline(ref) compiled to: `<dir>/src/bin/web.js`, `<dir>/<harness file>.js`. */
export function baselineBuildDir(ref: string): string {
  return path.join(baselineDir(ref), 'build');
}
