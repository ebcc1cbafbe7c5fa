import { mkdtemp, readdir, readFile, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { createEventEnqueuer } from '../../../src/events/enqueue-event';
import { normalizeEvent } from '../../../src/events/normalize-event';
import { createLogger } from '../../../src/logger';
import { createSandbox } from '@svcws/sandbox';
import type { RunningSandbox, Sandbox } from '@svcws/sandbox';
import { startFreezableProxy } from '../../helpers/freezable-proxy';
import type { FreezableProxy } from '../../helpers/freezable-proxy';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { spawnWorker } from './support/child-process';
import type { ChildWorker } from './support/child-process';

const RECORDS = 30_000; // about 36 MB of MARCXML: long enough to be cut off mid-download
/**
 * The workers reach the sandbox through a proxy that holds each download after this many bytes
 * until the test thaws it: a worker is killed or frozen midway whatever the machine's speed (on
 * a fast one, a second worker once finished its whole download between two looks at its file).
 */
const HELD_AFTER_BYTES = 2_000_000;

describe('worker process: SIGKILL mid-download and graceful shutdown', () => {
  let sandbox: Sandbox;
  let running: RunningSandbox;
  let proxy: FreezableProxy;
  let queueName: string;
  let queue: Queue;
  let recordsDir: string;
  const children: ChildWorker[] = [];

  beforeEach(async () => {
    sandbox = createSandbox({
      logger: createLogger({ level: 'silent', name: 'sandbox' }),
      config: { SANDBOX_JOB_DURATION_MS: 0 },
    });
    running = await sandbox.start(0);
    proxy = await startFreezableProxy({
      host: '127.0.0.1',
      port: Number(new URL(running.url).port),
    });
    queueName = uniqueQueueName('worker-proc');
    queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    recordsDir = await mkdtemp(join(tmpdir(), 'svc-records-'));
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.child.exitCode === null && child.child.signalCode === null)
        child.child.kill('SIGKILL');
      await child.exited();
    }
    await queue.close();
    await obliterateQueue(queueName);
    await proxy.close();
    await running.close();
    await rm(recordsDir, { recursive: true, force: true });
  });

  const env = (): Record<string, string> => ({
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_NAME: queueName,
    SVC_BASE_URL: `http://${proxy.hostPort}`,
    SVC_API_KEY: 'sandbox-key',
    RECORDS_DIR: recordsDir,
    WORKER_CONCURRENCY: '1',
    SHUTDOWN_TIMEOUT_MS: '20000',
    WORKER_METRICS_PORT: '0',
  });

  const CHILD = 'test/integration/worker/support/worker-child.ts';
  const start = (entry: string): ChildWorker => {
    const child = spawnWorker(entry, env());
    children.push(child);
    return child;
  };

  async function queueImportRun(records: number): Promise<{ jobId: string; dir: string }> {
    const job = sandbox.jobs().job('S7781');
    if (!job) throw new Error('no S7781');
    const instance = sandbox.jobs().run(job, { submittedBy: 'sandbox', records, durationMs: 0 });
    while (!instance.end) await new Promise((resolve) => setTimeout(resolve, 5));
    const answer = await fetch(`${running.url}/sandbox/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'job_end', instance_id: instance.id }),
    });
    const { event } = (await answer.json()) as { event: Record<string, unknown> };
    const enqueue = createEventEnqueuer({
      queue,
      dedupWindowHours: 1,
      attempts: 3,
      backoffDelayMs: 50,
    });
    const { jobId } = await enqueue(normalizeEvent(event));
    return { jobId, dir: join(recordsDir, '01SVC_INST', 'S7781', instance.id) };
  }

  /**
   * Waits for a temporary file past 1 MB that is none of `seen`; resolves with its name. Gives up
   * after 2 minutes naming what the folder held and what the workers said last (these tests once
   * hung for jest's 5 minutes on a loaded machine, saying nothing).
   */
  async function partFileGrowing(dir: string, seen: readonly string[] = []): Promise<string> {
    const until = Date.now() + 120_000;
    while (Date.now() < until) {
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const part of names.filter((name) => name.endsWith('.part') && !seen.includes(name))) {
        const size = await stat(join(dir, part)).then(
          (info) => info.size,
          () => 0,
        );
        if (size > 1_000_000) return part;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no new .part file past 1 MB in ${dir}: ${await waitedOn(dir)}`);
  }

  /** The folder's files and each worker's last lines, for a wait that gave up. */
  async function waitedOn(dir: string): Promise<string> {
    const names = await readdir(dir).catch(() => [] as string[]);
    const said = children.map((child, index) =>
      child
        .lines()
        .slice(-5)
        .map((line) => `worker ${String(index + 1)}: ${String(line.msg)}`)
        .join('; '),
    );
    return `files [${names.join(', ')}]; ${said.join(' | ')}`;
  }

  async function completeFile(dir: string, records: number): Promise<void> {
    const text = await readFile(join(dir, 'TOTAL_RECORDS_IMPORTED.xml'), 'utf8');
    expect(text.split('<record>').length - 1).toBe(records);
    expect(text.endsWith('</collection>\n')).toBe(true);
  }

  async function settled(jobId: string): Promise<'completed' | 'failed'> {
    const until = Date.now() + 120_000;
    let state = 'unknown';
    while (Date.now() < until) {
      state = await queue.getJobState(jobId);
      if (state === 'completed' || state === 'failed') return state;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`job ${jobId} still ${state} after 2 minutes: ${await waitedOn(recordsDir)}`);
  }

  it('leaves one complete file when a worker is SIGKILLed mid-download and another takes over; the leftover is swept once stale', async () => {
    const { jobId, dir } = await queueImportRun(RECORDS);
    proxy.holdEachAfter(HELD_AFTER_BYTES);
    const first = start(CHILD);
    const leftover = await partFileGrowing(dir);

    first.child.kill('SIGKILL');
    await first.exited();
    proxy.thaw();
    const second = start(CHILD);

    expect(await settled(jobId)).toBe('completed');
    await completeFile(dir, RECORDS);
    const summary = await second.waitForLine((line) => line.msg === 'job_end: records stored');
    expect(summary).toMatchObject({ records: RECORDS, apiCalls: 2 });
    // The second run wrote a file of its own: the killed run's leftover is still its own.
    expect((await readdir(dir)).sort()).toEqual([leftover, 'TOTAL_RECORDS_IMPORTED.xml']);

    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(join(dir, leftover), hourAgo, hourAgo);
    const third = start(CHILD);
    const swept = await third.waitForLine((line) => line.msg === 'stale temporary files removed');
    await third.waitForLine((line) => line.msg === 'worker ready');

    expect(swept).toMatchObject({ count: 1, files: [join(dir, leftover)] });
    expect(await readdir(dir)).toEqual(['TOTAL_RECORDS_IMPORTED.xml']);
  });

  it('retries a job whose worker is killed twice during it, instead of failing it unattempted', async () => {
    const { jobId, dir } = await queueImportRun(RECORDS);
    proxy.holdEachAfter(HELD_AFTER_BYTES);
    const first = start(CHILD);
    const firstPart = await partFileGrowing(dir);
    first.child.kill('SIGKILL');
    await first.exited();
    proxy.holdEachAfter(HELD_AFTER_BYTES);
    const second = start(CHILD);
    const secondPart = await partFileGrowing(dir, [firstPart]);
    second.child.kill('SIGKILL');
    await second.exited();
    proxy.thaw();
    start(CHILD);

    expect(await settled(jobId)).toBe('completed');
    const job = await queue.getJob(jobId);
    expect(job?.stalledCounter).toBe(2);
    expect(job?.failedReason).toBeUndefined();
    await completeFile(dir, RECORDS);
    expect(secondPart).not.toBe(firstPart);
  });

  it('aborts a run whose lock was lost while its process was frozen, and keeps the new run’s file', async () => {
    const { jobId, dir } = await queueImportRun(RECORDS);
    proxy.holdEachAfter(HELD_AFTER_BYTES);
    const first = start(CHILD);
    const firstPart = await partFileGrowing(dir);
    first.child.kill('SIGSTOP');
    proxy.holdEachAfter(HELD_AFTER_BYTES);
    const second = start(CHILD);
    await partFileGrowing(dir, [firstPart]);
    proxy.thaw();

    first.child.kill('SIGCONT');

    const lost = await first.waitForLine(
      (line) => line.msg === 'job lock lost: aborting its run here',
    );
    expect(lost).toMatchObject({ queueJobId: jobId });
    // Aborted, or — when the abort came only after its run had ended — its completion refused by
    // BullMQ for the lock it no longer holds. Either way the job completes once, by the new run,
    // and the file is whole (each run renames a complete file of the same records into place).
    const ended = await first.waitForLine(
      (line) =>
        line.msg === 'event run aborted: will run again' ||
        (line.msg === 'worker error' && JSON.stringify(line.err).includes('Missing lock for job')),
    );
    if (ended.msg === 'event run aborted: will run again') {
      expect(ended).toMatchObject({
        queueJobId: jobId,
        reason: expect.stringContaining('lock lost') as unknown,
      });
    }
    expect(await settled(jobId)).toBe('completed');
    await second.waitForLine((line) => line.msg === 'job_end: records stored');
    await completeFile(dir, RECORDS);
    // The aborted run removed its own temporary file; nothing else is left.
    expect(await readdir(dir)).toEqual(['TOTAL_RECORDS_IMPORTED.xml']);
  });

  it('finishes the job in flight on SIGTERM, then exits 0 (bin/worker.ts)', async () => {
    const { jobId, dir } = await queueImportRun(10_000);
    proxy.holdEachAfter(HELD_AFTER_BYTES);
    const worker = start('src/bin/worker.ts');
    const ready = await worker.waitForLine((line) => line.msg === 'worker ready');
    await partFileGrowing(dir);
    proxy.thaw();
    const metrics = await fetch(`http://127.0.0.1:${String(ready.metricsPort)}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^svcws_worker_api_remaining \d+$/m);

    worker.child.kill('SIGTERM');

    expect(await worker.exited()).toBe(0);
    expect(await queue.getJobState(jobId)).toBe('completed');
    expect(await readdir(dir)).toEqual(['TOTAL_RECORDS_IMPORTED.xml']);
    expect(worker.lines().map((line) => line.msg)).toEqual(
      expect.arrayContaining(['shutting down: no new jobs, finishing jobs in flight', 'stopped']),
    );
  });
});
