import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../helpers/free-port';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../../helpers/history-database';
import { TEST_REDIS_URL, uniqueQueueName } from '../../helpers/redis';
import { noteLinesOf } from '../../helpers/log-reference/note-log-line';

const ROOT = path.join(__dirname, '../../..');
const SECRET = '0123456789abcdef0123456789abcdef';

interface Running {
  readonly child: ChildProcess;
  /** Everything it wrote, stdout and stderr alike. */
  output(): string;
}

/** A composition root (src/bin) as its own process, with only the env given. */
function startBin(entry: string, env: Record<string, string>): Running {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/bin', entry)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  noteLinesOf(child.stdout);
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

function linesWith(output: string, text: string): string[] {
  return output.split('\n').filter((line) => line.includes(text));
}

/** What a process must never print while a dependency is away: ioredis's own lines, stacks. */
function expectNoNoise(output: string): void {
  expect(output).not.toContain('Unhandled error event');
  expect(output).not.toMatch(/^\s+at /m);
  expect(linesWith(output, '"redis connection error"')).toEqual([]);
}

describe('a process whose dependency is away', () => {
  const children: ChildProcess[] = [];
  const schemas: string[] = [];
  afterAll(async () => {
    await Promise.all(children.map(stopped));
    for (const schema of schemas) await dropSchema(schema);
  });

  it('listener, worker and console say once that Redis is away, naming REDIS_URL and the cadence, then that it is connected', async () => {
    const port = await freePort();
    const schema = uniqueSchema('away');
    schemas.push(schema);
    const env = {
      REDIS_URL: `redis://127.0.0.1:${String(port)}`,
      QUEUE_NAME: uniqueQueueName('away'),
      WEBHOOK_SECRET: SECRET,
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_API_KEY: 'test-key',
      PORT: '0',
      WORKER_METRICS_PORT: '0',
      RECORDS_DIR: mkdtempSync(path.join(tmpdir(), 'away-records-')),
    };
    // A spool of its own (the default, ./spool, would be the repository's).
    const web = startBin('web.ts', {
      ...env,
      SPOOL_DIR: mkdtempSync(path.join(tmpdir(), 'away-spool-')),
    });
    // History on: its writer opens a connection of its own (a copy of the worker's).
    const worker = startBin('worker.ts', {
      ...env,
      DATABASE_URL: TEST_DATABASE_URL,
      HISTORY_SCHEMA: schema,
      HISTORY_KEY: `${SECRET}-history`,
    });
    const tokens = path.join(env.RECORDS_DIR, 'tokens.yaml');
    const sha256 = createHash('sha256').update('operator-token').digest('hex');
    writeFileSync(tokens, `tokens:\n  - { name: ops, sha256: ${sha256}, role: operator }\n`);
    const operatorConsole = startBin('console.ts', {
      REDIS_URL: env.REDIS_URL,
      QUEUE_NAME: env.QUEUE_NAME,
      CONSOLE_TOKENS_FILE: tokens,
      CONSOLE_PORT: '0',
    });
    const all = [web, worker, operatorConsole];
    children.push(...all.map((run) => run.child));
    const warned = (run: Running) =>
      linesWith(run.output(), '"msg":"cannot reach Redis: retrying"');
    await until(() => all.every((run) => warned(run).length > 0), 'the warnings');
    // Several retries go by (every 2 s at most) before Redis comes.
    await new Promise((resolve) => setTimeout(resolve, 7000));
    const redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    children.push(redis);
    const connected = (run: Running) => run.output().includes('"msg":"redis connected"');
    await until(
      () => connected(web) && connected(operatorConsole),
      'listener and console connected',
    );
    await until(() => worker.output().includes('"msg":"worker ready"'), 'the worker ready');

    for (const run of all) {
      const [warning, ...more] = warned(run);
      expect(more).toEqual([]);
      expect(JSON.parse(warning ?? '{}')).toMatchObject({
        level: 40,
        key: 'REDIS_URL',
        target: `127.0.0.1:${String(port)}`,
        retryEverySeconds: 2,
        reason: expect.stringContaining('connect ECONNREFUSED'),
        msg: 'cannot reach Redis: retrying',
      });
      expectNoNoise(run.output());
    }
    expect(worker.output()).toContain('"msg":"redis connected"');
  });

  it('says once that the history database is away, naming DATABASE_URL and the cadence', async () => {
    const port = await freePort();
    const worker = startBin('worker.ts', {
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: uniqueQueueName('away-pg'),
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_API_KEY: 'test-key',
      WORKER_METRICS_PORT: '0',
      RECORDS_DIR: mkdtempSync(path.join(tmpdir(), 'away-records-')),
      DATABASE_URL: `postgres://postgres@127.0.0.1:${String(port)}/test`,
      HISTORY_KEY: `${SECRET}-history`,
    });
    children.push(worker.child);
    const warned = () => linesWith(worker.output(), 'history database not reachable');
    await until(() => warned().length > 0, 'the warning');
    // The first retries come after 5 s and 10 s: both go by quietly.
    await new Promise((resolve) => setTimeout(resolve, 16_000));
    expect(warned()).toHaveLength(1);
    expect(JSON.parse(warned()[0] ?? '{}')).toMatchObject({
      level: 40,
      key: 'DATABASE_URL',
      retryFirstSeconds: 5,
      retryMaxSeconds: 60,
      reason: expect.stringContaining('connect ECONNREFUSED'),
      msg: 'history database not reachable: records wait in Redis, retrying',
    });
    expectNoNoise(worker.output());
  });
});
