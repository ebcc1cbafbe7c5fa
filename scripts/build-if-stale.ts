import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm start`, `npm run worker` and `npm run console` run this first: it builds only when a source
 * the build reads is newer than what the build wrote (or nothing was built), so a start after an
 * unchanged checkout takes no ten-second build.
 */
const inputs = [
  'src',
  'packages/client/src',
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'packages/client/package.json',
  'packages/client/tsconfig.json',
  'packages/client/tsconfig.build.json',
];
const outputs = ['dist/bin/web.js', 'packages/client/dist/index.js'];

/** The newest modification time under `target` (a file, or a directory walked whole). */
function newestMtime(target: string): number {
  const stats = statSync(target, { throwIfNoEntry: false });
  if (stats === undefined) return 0;
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(target)) {
    newest = Math.max(newest, newestMtime(path.join(target, entry)));
  }
  return newest;
}

/** The oldest of the build's outputs; 0 when one is missing. */
function oldestOutput(root: string): number {
  const times = outputs.map(
    (file) => statSync(path.join(root, file), { throwIfNoEntry: false })?.mtimeMs ?? 0,
  );
  return Math.min(...times);
}

/**
 * Whether the build under `root` must run: an output is missing, or a source (a file, or a
 * directory whose entries changed: a file removed counts) is newer than the oldest output.
 */
export function buildIsStale(root: string): boolean {
  const newestInput = Math.max(...inputs.map((input) => newestMtime(path.join(root, input))));
  return newestInput > oldestOutput(root);
}

// Run as a script (npm's pre-scripts), not when a test imports the decision above.
if (require.main === module) {
  const root = path.resolve(__dirname, '..');
  if (buildIsStale(root)) {
    const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
    process.exit(build.status ?? 1);
  }
}
