import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import {
  HISTORY_CONSOLE_TOKENS,
  startConsoleWithHistory,
} from '../../helpers/console-with-history';
import { TEST_DATABASE_URL } from '../../helpers/history-database';
import { fixtureEvent } from '../../helpers/history-events';
import { freePort } from '../../../bench/ingress/free-port';

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 60_000 }, (error, _stdout, stderr) => {
      if (error === null) resolve();
      else reject(new Error(`${command}: ${stderr}`));
    });
  });
}

/** A private redis-server with AOF on, as docker-compose.yml runs it, in `dir`. */
async function startRedis(dir: string): Promise<{ child: ChildProcess; redis: Redis }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--save',
      '',
    ],
    { stdio: 'ignore' },
  );
  // Commands wait in the offline queue while redis-server starts: the PING answers once it is up.
  const redis = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: null });
  await redis.ping();
  return { child, redis };
}

async function stopRedis(running: { child: ChildProcess; redis: Redis }): Promise<void> {
  running.redis.disconnect();
  if (running.child.exitCode === null) {
    running.child.kill('SIGKILL');
    await once(running.child, 'exit');
  }
}

async function query(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

describe('backup and restore, as docs/deployment.md tells them', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svcws-backup-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('restores queued jobs from a copy of Redis’s append-only directory into a fresh Redis', async () => {
    await mkdir(join(dir, 'live'));
    const live = await startRedis(join(dir, 'live'));
    const queue = new Queue('svc-events', { connection: live.redis });
    await queue.add('loan', { id: 'evt-backed-up' }, { jobId: 'evt-backed-up' });
    // The backup: no rewrite may run while the directory is copied, then rewrites resume.
    await live.redis.config('SET', 'auto-aof-rewrite-percentage', '0');
    expect(await live.redis.info('persistence')).toContain('aof_rewrite_in_progress:0');
    await cp(join(dir, 'live', 'appendonlydir'), join(dir, 'backup', 'appendonlydir'), {
      recursive: true,
    });
    await live.redis.config('SET', 'auto-aof-rewrite-percentage', '100');
    await queue.close();
    await stopRedis(live);

    const restored = await startRedis(join(dir, 'backup'));
    try {
      const job = await new Queue('svc-events', { connection: restored.redis }).getJob(
        'evt-backed-up',
      );

      expect(job?.data).toEqual({ id: 'evt-backed-up' });
    } finally {
      await stopRedis(restored);
    }
  });

  it('restores the history from pg_dump into a fresh database, which the console reads', async () => {
    const source = await startConsoleWithHistory();
    const loan = fixtureEvent('loan-returned');
    await source.record([loan]);
    const dump = join(dir, 'history.dump');
    await run('pg_dump', [
      '--dbname',
      TEST_DATABASE_URL,
      '--schema',
      source.schema,
      '--format',
      'custom',
      '--file',
      dump,
    ]);
    await source.close();
    const database = `restore_${source.schema}`;
    const freshUrl = `${TEST_DATABASE_URL.replace(/\/[^/]*$/, '')}/${database}`;
    await query(TEST_DATABASE_URL, `CREATE DATABASE ${database}`);
    try {
      await run('pg_restore', ['--dbname', freshUrl, '--no-owner', dump]);
      const restored = await startConsoleWithHistory({
        existing: { url: freshUrl, schema: source.schema },
      });
      try {
        const answer = await fetch(`${restored.url}/api/v1/events/01SVC_INST/${loan.id}`, {
          headers: { authorization: `Bearer ${HISTORY_CONSOLE_TOKENS.operator}` },
        });

        expect(answer.status).toBe(200);
        const body = (await answer.json()) as { steps: { kind: string }[] };
        expect(body.steps.map((step) => step.kind)).toEqual(['received']);
      } finally {
        await restored.close();
      }
    } finally {
      await query(TEST_DATABASE_URL, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    }
  });
});
