import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.join(__dirname, '../..');

export interface Started {
  child: ChildProcess;
  port: number;
  output: () => string;
}

/** Starts src/bin/web.ts as the container would run it (through tsx), on a free port. */
export async function startWeb(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/bin/web.ts')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
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
