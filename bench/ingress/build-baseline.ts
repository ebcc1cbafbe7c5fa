import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

/**
 * BENCH_BASELINE=<git ref>: the listener's src/ at that ref, compiled beside the current one
 * (`.tmp/bench-baseline/<ref>`), so a before/after comparison runs in the same rounds, under the
 * same load from whatever else the machine is doing. Returns the compiled src/bin/web.js.
 */
export function buildBaseline(ref: string): string {
  const dir = path.join(ROOT, '.tmp/bench-baseline', ref.replace(/[^A-Za-z0-9._-]/g, '_'));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync('git', ['archive', '--format=tar', ref, 'src'], { cwd: ROOT });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
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
      include: [path.join(dir, 'src')],
    }),
  );
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', config], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  return path.join(dir, 'build/src/bin/web.js');
}
