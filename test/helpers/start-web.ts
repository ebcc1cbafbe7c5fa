import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { noteLinesOf } from './log-reference/note-log-line';

const root = path.join(__dirname, '../..');

export interface Started {
  child: ChildProcess;
  port: number;
  output: () => string;
}

/**
 * Starts src/bin/web.ts as the container would run it (through tsx), on a free port; `nodeArgs`
 * go to Node after tsx (a preload such as TALLY_PRELOAD).
 */
export async function startWeb(
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<Started> {
  const script = path.join(root, 'src/bin/web.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', ...nodeArgs, script], {
    cwd: root,
    // SPOOL_DIR off unless the test names one: the default (./spool) would be the repository's.
    env: { PATH: process.env.PATH ?? '', SPOOL_DIR: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  noteLinesOf(child.stdout);
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /"msg":"listener ready"/.test(output) ? /"port":(\d+)/.exec(output) : null;
      if (match?.[1]) {
        clearInterval(timer);
        resolve(Number(match[1]));
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`web exited with ${String(code)}: ${output}`));
    });
  });
  return { child, port, output: () => output };
}

export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Resolves once the child has exited and its stdout and stderr are read to the end. */
export function closeOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('close', (code) => resolve(code)));
}
