import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { join } from 'node:path';
import { readAnswer } from './raw-post';
import type { RawAnswer } from './raw-post';

/** The repository's root: what a proxy test runs commands in and reads deploy/proxy from. */
export const ROOT = join(__dirname, '../..');

/** A command's exit status and its output (stdout, then stderr), within a minute. */
export function runCommand(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(command, args, { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** Resolves once something accepts connections on the loopback port (a deadline of 10 s). */
export async function accepting(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const socket = connect(port, '127.0.0.1');
    const ok = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(true));
      socket.once('error', () => resolve(false));
    });
    socket.destroy();
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing accepts on ${String(port)}`);
}

export interface ProxyRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Its source address: another loopback address is another client to the proxy. */
  from?: string;
  /** HTTPS trusting this certificate only; unset: plain HTTP. */
  ca?: string;
}

/** One request through a proxy under test, answered as read by raw-post.ts. */
export function proxyRequest(url: string, options: ProxyRequest = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const common = {
      method: options.method ?? 'GET',
      headers: options.headers,
      ...(options.from === undefined ? {} : { localAddress: options.from, agent: false }),
    };
    const onAnswer = (res: Parameters<typeof readAnswer>[0]) => {
      readAnswer(res).then(resolve, reject);
    };
    const req =
      options.ca === undefined
        ? httpRequest(url, common, onAnswer)
        : httpsRequest(url, { ...common, ca: options.ca }, onAnswer);
    req.on('error', reject);
    req.end(options.body);
  });
}
