import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const READS_ENV = ['start', 'worker', 'console', 'events', 'sandbox'];

function node(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd, env, timeout: 30_000 }, (error, stdout) => {
      if (error === null) resolve(stdout.trim());
      else reject(error);
    });
  });
}

describe('the npm scripts and .env', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svcws-env-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('start, worker, console, events and sandbox load .env through Node itself', async () => {
    const scripts = (
      JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;

    for (const name of READS_ENV) {
      expect([name, scripts[name]?.startsWith('node --env-file-if-exists=.env ')]).toEqual([
        name,
        true,
      ]);
    }
  });

  it('on this Node, reads .env when it exists, lets the environment win, and runs without one', async () => {
    const print = [
      '--env-file-if-exists=.env',
      '-e',
      'console.log(process.env.QUEUE_NAME, process.env.LOG_LEVEL)',
    ];
    const env = { PATH: process.env.PATH, LOG_LEVEL: 'warn' };

    expect(await node(print, dir, env)).toBe('undefined warn');
    await writeFile(join(dir, '.env'), 'QUEUE_NAME=from-dotenv\nLOG_LEVEL=debug\n');
    expect(await node(print, dir, env)).toBe('from-dotenv warn');
  });
});
