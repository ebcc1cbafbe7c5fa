import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');
/** Where the bench's servers are compiled to; `.tmp/` is not committed. */
const BUILD_DIR = path.join(ROOT, '.tmp/bench-build');

/**
 * Compiles src/ and the bench's servers with tsc, as `npm start` runs the listener (from tsc's
 * output, not through a TypeScript loader): a loader's own memory would count in the RSS target,
 * and every server runs the same kind of JavaScript. The client package is built first, as
 * `npm run build` does: a fresh clone has no packages/client/dist.
 */
export function buildServers(): void {
  // src/ imports @svcws/client, which Node resolves to the workspace package's dist/.
  execFileSync(
    process.execPath,
    [
      require.resolve('typescript/bin/tsc'),
      '-p',
      path.join(ROOT, 'packages/client/tsconfig.build.json'),
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  mkdirSync(BUILD_DIR, { recursive: true });
  const config = path.join(BUILD_DIR, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: path.join(ROOT, 'tsconfig.json'),
      compilerOptions: {
        rootDir: ROOT,
        outDir: BUILD_DIR,
        types: ['node'],
        declaration: false,
        sourceMap: false,
      },
      include: [path.join(ROOT, 'src'), path.join(ROOT, 'bench/servers')],
    }),
  );
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', config], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

/** The compiled file of a `.ts` path given from the repository root. */
export function builtScript(script: string): string {
  return path.join(BUILD_DIR, script.replace(/\.ts$/, '.js'));
}
