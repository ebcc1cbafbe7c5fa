import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { builtScript } from './build-servers';
import type { Cores } from './cores';
import { freePort } from './free-port';
import type { HttpServerTally } from './http-server-tally';

export interface ServerSample {
  /** Server CPU time (user + system) since the last sample, µs. */
  cpuUs: number;
  requests: number;
  rssBytes: number;
}

export interface BenchServer {
  readonly name: string;
  readonly url: string;
  /** CPU and requests since the last call (cpu-probe.ts), and the RSS now. */
  sample(): Promise<ServerSample>;
  rss(): Promise<number>;
  /** What its HTTP server did so far (only with `tally` in its spec). */
  tally(): Promise<HttpServerTally>;
  stop(): Promise<void>;
}

export interface BenchServerSpec {
  name: string;
  /** Script path from the repository root (compiled by buildServers), or an absolute .js path. */
  script: string;
  args?: string[];
  env: Record<string, string>;
  /** The server is ready when this path answers 200 (default: any HTTP answer on /). */
  readyPath?: string;
  /** Preload http-server-tally-probe.ts too, so `tally()` answers. */
  tally?: boolean;
  webhookPath?: string;
}

const ROOT = path.join(__dirname, '../..');

/**
 * Starts one server of the bench (compiled by buildServers) in its own process, on the server's
 * core, with cpu-probe preloaded; its stdout (log lines) goes to /dev/null. BENCH_CPU_PROF=<dir>
 * writes a V8 CPU profile of each server there when it stops (`--cpu-prof`).
 */
export async function startBenchServer(spec: BenchServerSpec, cores: Cores): Promise<BenchServer> {
  const port = await freePort();
  const [command = process.execPath, ...prefix] = [...cores.server, process.execPath];
  const child = spawn(
    command,
    [
      ...prefix,
      ...profiling(spec.name),
      '--require',
      builtScript('bench/servers/cpu-probe.ts'),
      ...(spec.tally === true
        ? ['--require', builtScript('bench/servers/http-server-tally-probe.ts')]
        : []),
      path.isAbsolute(spec.script) ? spec.script : builtScript(spec.script),
      ...(spec.args ?? []),
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      // No spool unless the spec names one: the listener's default (./spool) would be this
      // repository's, and a second listener on it is refused (one spool, one listener).
      env: { ...process.env, SPOOL_DIR: 'off', ...spec.env, PORT: String(port) },
    },
  );
  const base = `http://127.0.0.1:${port}`;
  await untilReady(child, `${base}${spec.readyPath ?? '/'}`, spec.readyPath !== undefined);
  return {
    name: spec.name,
    url: `${base}${spec.webhookPath ?? '/webhooks'}`,
    sample: () => ask<ServerSample>(child, 'cpu'),
    rss: async () => (await ask<ServerSample>(child, 'rss')).rssBytes,
    tally: async () => (await ask<{ tally: HttpServerTally }>(child, 'tally')).tally,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function profiling(name: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  if (dir === undefined || dir === '') return [];
  return [
    '--cpu-prof',
    '--cpu-prof-dir',
    dir,
    '--cpu-prof-name',
    `${name}-${Date.now()}.cpuprofile`,
  ];
}

async function untilReady(child: ChildProcess, url: string, need200: boolean): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${url}: server exited with ${child.exitCode}`);
    try {
      const answer = await fetch(url);
      await answer.arrayBuffer();
      if (!need200 || answer.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 30_000) throw new Error(`${url}: not ready after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One question over IPC; the answer names its question, so RSS samples and CPU reads never mix. */
function ask<T>(child: ChildProcess, question: 'cpu' | 'rss' | 'tally'): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (answer: unknown): void => {
      if ((answer as { question?: unknown }).question !== question) return;
      child.off('message', onMessage);
      resolve(answer as T);
    };
    child.on('message', onMessage);
    child.send(question);
  });
}
