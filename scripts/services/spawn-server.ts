import { spawn } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { openSync, readFileSync, closeSync } from 'node:fs';
import path from 'node:path';

export interface SpawnedServer {
  readonly child: ChildProcess;
  readonly logFile: string;
  /** Waits until `answers()` is true; fails naming the server with its log's tail if it exits or the deadline passes. */
  ready(answers: () => Promise<boolean>, timeoutMs?: number): Promise<void>;
  /** Sends `signal` to the server's whole process group and waits for the program to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `command` in a process group of its own, its output into `<dir>/<name>.log`. */
export function spawnServer(
  name: string,
  command: string,
  args: readonly string[],
  options: { dir: string; env?: NodeJS.ProcessEnv; uid?: number; gid?: number },
): SpawnedServer {
  const logFile = path.join(options.dir, `${name}.log`);
  const log = openSync(logFile, 'a');
  const spawnOptions: SpawnOptions = {
    cwd: options.dir,
    env: options.env ?? process.env,
    stdio: ['ignore', log, log],
    detached: true,
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid }),
  };
  const child = spawn(command, [...args], spawnOptions);
  closeSync(log);
  child.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    logFile,
    ready: (answers, timeoutMs = 90_000) => waitReady(name, child, logFile, answers, timeoutMs),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killGroup(child, signal);
      // Still running after 15 s: killed outright (the timer is cleared, so it holds nothing open).
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
}

async function waitReady(
  name: string,
  child: ChildProcess,
  logFile: string,
  answers: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await answers())) {
    const ended = child.exitCode !== null || child.signalCode !== null;
    if (ended || Date.now() > deadline) {
      const why = ended
        ? `exited (${String(child.exitCode ?? child.signalCode)})`
        : `did not answer within ${String(timeoutMs / 1000)} s`;
      throw new Error(`private ${name} ${why}; the end of ${logFile}:\n${tailOf(logFile)}`);
    }
    await delay(100);
  }
}

function tailOf(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '(no log)';
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
