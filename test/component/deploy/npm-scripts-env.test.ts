import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from '../../helpers/free-port';

const ROOT = join(__dirname, '../../..');
const READS_ENV = ['start', 'worker', 'console', 'events', 'sandbox'];
/** tsx's loader and the product's .env loader, by file URL: they load from any directory. */
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const ENV_FILE = pathToFileURL(join(ROOT, 'src/bin/env-file.ts')).href;

function node(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd, env, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error === null) resolve({ stdout: stdout.trim(), stderr });
      else reject(error);
    });
  });
}

async function scripts(): Promise<Record<string, string>> {
  const text = await readFile(join(ROOT, 'package.json'), 'utf8');
  return (JSON.parse(text) as { scripts: Record<string, string> }).scripts;
}

describe('the npm scripts and .env', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svcws-env-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('start, worker, console, events and sandbox load .env through src/bin/env-file.ts, not Node’s flag', async () => {
    const all = await scripts();

    for (const name of READS_ENV) {
      const script = all[name] ?? '';
      expect([name, /--import \.\/(dist|src)\/bin\/env-file\.(js|ts) /.test(script)]).toEqual([
        name,
        true,
      ]);
      expect([name, script.includes('--env-file')]).toEqual([name, false]);
    }
  });

  it('reads .env when it exists, lets the environment win, and says nothing without one', async () => {
    const print = [
      '--import',
      TSX,
      '--import',
      ENV_FILE,
      '-e',
      'console.log(process.env.QUEUE_NAME, process.env.LOG_LEVEL)',
    ];
    const env = { PATH: process.env.PATH, LOG_LEVEL: 'warn' };

    // Node's --env-file-if-exists said ".env not found. Continuing without it." on stderr here.
    expect(await node(print, dir, env)).toEqual({ stdout: 'undefined warn', stderr: '' });
    await writeFile(join(dir, '.env'), 'QUEUE_NAME=from-dotenv\nLOG_LEVEL=debug\n');
    expect(await node(print, dir, env)).toEqual({ stdout: 'from-dotenv warn', stderr: '' });
  });

  it('a process started by its npm script writes only JSON lines, on both streams', async () => {
    // The sandbox's script, its words as npm runs them from the repository (without the shell, so
    // the signal reaches node itself): a server that needs no Redis and no build. With no .env in
    // the repository (CI), this is the case that printed Node's notice; with one, the loader
    // reads it and must say nothing either.
    const [command, ...args] = ((await scripts()).sandbox ?? '').split(' ');
    expect(command).toBe('node');
    const port = await freePort();
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH, SANDBOX_PORT: String(port), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(child, 'exit');
    try {
      const deadline = Date.now() + 60_000;
      while (!output.includes('sandbox ready') && Date.now() < deadline) {
        if (child.exitCode !== null) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(output).toContain('sandbox ready');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }

    const lines = output.split('\n').filter((line) => line.trim() !== '');
    const notJson = lines.filter((line) => {
      try {
        return typeof JSON.parse(line) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    expect(lines.length).toBeGreaterThanOrEqual(2);
  });
});
