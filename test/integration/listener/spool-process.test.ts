import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { startPrivateRedis } from '../../helpers/private-redis';
import type { PrivateRedis } from '../../helpers/private-redis';
import { uniqueQueueName } from '../../helpers/redis';
import { startDeliveries } from '../redis-ha/support/send-deliveries';
import { spawnWorker } from '../worker/support/child-process';
import type { ChildWorker } from '../worker/support/child-process';

const SECRET = 'spool-process-secret';
const ROOT = join(__dirname, '../../..');

describe('the listener process with a spool', () => {
  let redis: PrivateRedis;
  let dir: string;
  const children: ChildWorker[] = [];

  beforeAll(async () => {
    redis = await startPrivateRedis();
    dir = await mkdtemp(join(tmpdir(), 'spool-process-'));
  });
  afterAll(async () => {
    for (const one of children) one.child.kill('SIGKILL');
    await redis.close();
    await rm(dir, { recursive: true, force: true });
  });

  const startWeb = async (
    env: Record<string, string>,
  ): Promise<{ web: ChildWorker; port: number }> => {
    const web = spawnWorker('src/bin/web.ts', {
      PORT: '0',
      WEBHOOK_SECRET: SECRET,
      SPOOL_DIR: dir,
      ...env,
    });
    children.push(web);
    const ready = await web.waitForLine((line) => line.msg === 'listener ready');
    return { web, port: Number(ready.port) };
  };

  it('killed with SIGKILL while 2,000 events are spooled: after restart all are queued, none twice; a second process on the directory is refused', async () => {
    const queueName = uniqueQueueName('spool-process');
    const env = { REDIS_URL: redis.url, QUEUE_NAME: queueName };
    await redis.stop();
    const first = await startWeb(env);

    const run = startDeliveries({
      port: first.port,
      secret: SECRET,
      perSecond: 200,
      idPrefix: '95',
    });
    while (run.answered().length < 2000) await new Promise((resolve) => setTimeout(resolve, 50));
    const records = await run.stop();
    // Every answer 200: nothing was refused while Redis was away.
    expect(records.filter((record) => record.status !== 200)).toEqual([]);

    // A second listener on the same directory, while the first lives: refused, naming it.
    const second = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/bin/web.ts')], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', WEBHOOK_SECRET: SECRET, SPOOL_DIR: dir, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    second.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => second.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain(
      `spool directory ${dir} is in use by process ${String(first.web.child.pid)}`,
    );

    first.web.child.kill('SIGKILL');
    await first.web.exited();
    await redis.start();
    const restarted = await startWeb(env);

    const queue = new Queue(queueName, { connection: { url: redis.url } });
    try {
      // Drained before the restarted listener listens: every job is there once it is ready.
      const jobs = await queue.getJobs(['waiting'], 0, -1, true);
      const ids = jobs.map((job) => job.id);
      expect(ids).toHaveLength(records.length);
      expect(new Set(ids)).toEqual(new Set(records.map((record) => `evt-${record.id}`)));
      expect((await readdir(dir)).filter((name) => name.endsWith('.spool'))).toEqual([]);
    } finally {
      await queue.close();
      restarted.web.child.kill('SIGTERM');
      await restarted.web.exited();
    }
  });
});
