import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { noteLogLine } from '../../../helpers/log-reference/note-log-line';

export interface ChildWorker {
  readonly child: ChildProcess;
  /** Parsed JSON lines of its stdout so far. */
  lines(): Record<string, unknown>[];
  /**
   * Resolves with the first line that matches; rejects when the child exits first, or after
   * `withinMs` (2 minutes) naming the child's last lines, so a wait never runs into jest's own
   * timeout saying nothing.
   */
  waitForLine(
    match: (line: Record<string, unknown>) => boolean,
    withinMs?: number,
  ): Promise<Record<string, unknown>>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited(): Promise<number | null>;
}

const ROOT = join(__dirname, '../../../..');

/** Runs a TypeScript entry with `node --import tsx`, its env on top of this process's. */
export function spawnWorker(entry: string, env: Record<string, string>): ChildWorker {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, entry)], {
    cwd: ROOT,
    // SPOOL_DIR off unless a test names one: a listener's default spool (./spool) would be this
    // repository's, shared by every test that starts one.
    env: { ...process.env, LOG_LEVEL: 'info', SPOOL_DIR: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const parsed: Record<string, unknown>[] = [];
  const waiters: {
    match: (line: Record<string, unknown>) => boolean;
    resolve: (line: Record<string, unknown>) => void;
  }[] = [];
  let rest = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    rest += chunk.toString('utf8');
    const complete = rest.split('\n');
    rest = complete.pop() ?? '';
    for (const text of complete) {
      if (text.trim() === '') continue;
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue;
      }
      parsed.push(line);
      noteLogLine(line);
      for (const waiter of [...waiters]) {
        if (waiter.match(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    lines: () => [...parsed],
    waitForLine: (match, withinMs = 120_000) => {
      const seen = parsed.find(match);
      if (seen) return Promise.resolve(seen);
      // A child that exits first (a config error, say) fails the wait at once instead of letting
      // the test run into its timeout.
      const gone = exit.then((code) => {
        throw new Error(`${entry} exited (${String(code)}) before the line awaited`);
      });
      const found = new Promise<Record<string, unknown>>((resolve) =>
        waiters.push({ match, resolve }),
      );
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const last = parsed.slice(-8).map((line) => String(line.msg));
          reject(
            new Error(
              `${entry}: no such line within ${String(withinMs)} ms; its last lines: ${last.join(' | ')}`,
            ),
          );
        }, withinMs);
      });
      return Promise.race([found, gone, late]).finally(() => clearTimeout(timer));
    },
    exited: () => exit,
  };
}

/** SIGKILLs every child still running and waits for each to be gone. */
export async function killChildren(children: readonly ChildWorker[]): Promise<void> {
  for (const one of children) {
    if (one.child.exitCode === null && one.child.signalCode === null) {
      one.child.kill('SIGKILL');
      await one.exited();
    }
  }
}
