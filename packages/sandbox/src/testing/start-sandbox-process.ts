import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';

const PACKAGE_ROOT = path.join(__dirname, '../..');

export interface SandboxProcess {
  /** `http://127.0.0.1:<port>`, from the sandbox's "ready" log line. */
  readonly url: string;
  /** Resident set size of the sandbox process, from /proc (Linux). */
  rss(): number;
  stop(): Promise<void>;
}

/**
 * The real composition root (the package's `src/bin/sandbox.ts`) in a child process on a free port, so what the
 * sandbox does (generating records, say) is measured apart from the caller. `env` adds to the
 * caller's environment.
 */
export async function startSandboxProcess(
  env: Record<string, string> = {},
): Promise<SandboxProcess> {
  const child: ChildProcessByStdio<null, Readable, null> = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(PACKAGE_ROOT, 'src/bin/sandbox.ts')],
    {
      // tsx resolves `svcws-listener` through the tsconfig `paths` of the working directory.
      cwd: PACKAGE_ROOT,
      env: { ...process.env, SANDBOX_PORT: '0', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${String(code)}`)));
  });
  return {
    url,
    rss: () => {
      const status = readFileSync(`/proc/${String(child.pid)}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
