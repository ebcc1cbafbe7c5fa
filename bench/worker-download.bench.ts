import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Queue } from 'bullmq';
import { WorkerConfig } from '../src/config';
import { createEventEnqueuer } from '../src/events/enqueue-event';
import { normalizeEvent } from '../src/events/normalize-event';
import { createLogger } from '../src/logger';
import type { Logger } from '../src/logger';
import { createWorkerProcess } from '../src/processes/worker-process';
import { startSandboxProcess } from '@svcws/sandbox';
import { closeRedis } from '../src/redis/close-redis';
import { openWorkerConnection } from '../src/redis/open-worker-connection';
import { benchRedis } from './ingress/private-redis';

const TARGET_MB = Number(process.env.BENCH_DOWNLOAD_MB ?? 500);
const FORMAT = process.env.BENCH_DOWNLOAD_FORMAT === 'BINARY' ? 'BINARY' : 'XML';
/** Bytes per sandbox record: MARCXML ~1,206, ISO 2709 ~451 (measured on the seeded records). */
const BYTES_PER_RECORD = FORMAT === 'XML' ? 1206 : 451;
const RSS_TARGET_MB = 30;

type Line = Record<string, unknown>;

/**
 * `npm run bench -- worker-download`: a ~500 MB download (sandbox in its own process, so its
 * memory is not counted) through the worker's whole job_end path — BullMQ job, instance fetch,
 * streamed download, MARC count, temp file and rename — and this process's RSS while it runs.
 * Its queue is on a private redis-server (BENCH_REDIS_URL: that Redis instead).
 */
export async function run(): Promise<void> {
  const redis = await benchRedis({ server: [], load: [], description: 'not pinned' });
  try {
    await measureDownload(redis.url);
  } finally {
    await redis.stop();
  }
}

async function measureDownload(redisUrl: string): Promise<void> {
  const sandbox = await startBenchSandbox();
  const recordsDir = await mkdtemp(path.join(tmpdir(), 'bench-records-'));
  const queueName = `bench-worker-${randomUUID().slice(0, 8)}`;
  const queue = new Queue(queueName, { connection: { url: redisUrl } });
  const lines: Line[] = [];
  const logger = collectingLogger(lines);
  const connection = openWorkerConnection(redisUrl, logger);
  const worker = createWorkerProcess({
    connection,
    config: WorkerConfig.parse({
      REDIS_URL: redisUrl,
      QUEUE_NAME: queueName,
      SVC_BASE_URL: sandbox.url,
      SVC_API_KEY: 'sandbox-key',
      RECORDS_DIR: recordsDir,
      DOWNLOAD_FORMAT: FORMAT,
      WORKER_CONCURRENCY: '1',
    }),
    logger,
    env: {},
  });
  const enqueue = createEventEnqueuer({ queue, dedupWindowHours: 1, attempts: 1 });

  const processRun = async (records: number): Promise<Line> => {
    const event = await sandbox.jobEnd(records);
    await enqueue(normalizeEvent(event));
    for (;;) {
      const done = lines.find(
        (line) => line.eventId === event.id && String(line.msg).startsWith('job_end:'),
      );
      const failed = lines.find((line) => line.eventId === event.id && line.level === 50);
      if (failed) throw new Error(`bench job failed: ${JSON.stringify(failed)}`);
      if (done) return done;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  try {
    // Warm-up: a 25 MB run of the same path, so modules, connections, stream buffers and V8's
    // young generation are at their steady size before the baseline is read. Without it the
    // figure includes a one-off ~35 MB step (the same at 100, 250 and 500 MB: not growth).
    await processRun(Math.ceil(25e6 / BYTES_PER_RECORD));
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    const records = Math.ceil((TARGET_MB * 1e6) / BYTES_PER_RECORD);
    const summary = await processRun(records);
    clearInterval(sampler);

    printSummary(summary, records, { baseline, peak });
  } finally {
    await worker.close();
    await closeRedis(connection);
    await queue.obliterate({ force: true });
    await queue.close();
    await sandbox.stop();
    await rm(recordsDir, { recursive: true, force: true });
  }
}

/** The worker's logger, each line parsed into `lines` (the bench waits on its job_end line). */
function collectingLogger(lines: Line[]): Logger {
  return createLogger({
    level: 'info',
    name: 'bench-worker',
    destination: new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const text of chunk.toString('utf8').split('\n')) {
          if (text.trim() !== '') lines.push(JSON.parse(text) as Line);
        }
        callback();
      },
    }),
  });
}

function printSummary(
  summary: Line,
  records: number,
  rss: { readonly baseline: number; readonly peak: number },
): void {
  const bytes = Number(summary.bytes);
  const seconds = Number(summary.durationMs) / 1000;
  const growthMb = (rss.peak - rss.baseline) / 2 ** 20;
  const print = (label: string, value: string): void => {
    process.stdout.write(`${label.padEnd(26)}${value}\n`);
  };
  print('format', `${FORMAT} (${summary.file as string})`);
  print('downloaded', `${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s`);
  print('records counted', `${String(summary.records)} (expected ${String(records)})`);
  print('records/s', Math.round(Number(summary.records) / seconds).toLocaleString('en-US'));
  print('MB/s', (bytes / 1e6 / seconds).toFixed(1));
  print('API calls', String(summary.apiCalls));
  print('RSS baseline', `${(rss.baseline / 2 ** 20).toFixed(1)} MB`);
  print('RSS peak', `${(rss.peak / 2 ** 20).toFixed(1)} MB`);
  print(
    'RSS growth',
    `${growthMb.toFixed(1)} MB (target < ${String(RSS_TARGET_MB)} MB: ${growthMb < RSS_TARGET_MB ? 'met' : 'NOT met'})`,
  );
}

interface BenchSandbox {
  /** Runs the import job with `records` records and returns its job_end event. */
  jobEnd(records: number): Promise<Line & { id: string }>;
  url: string;
  stop(): Promise<void>;
}

async function startBenchSandbox(): Promise<BenchSandbox> {
  const sandbox = await startSandboxProcess({ SANDBOX_JOB_DURATION_MS: '0' });
  const { url } = sandbox;
  const admin = async (route: string, body: unknown): Promise<Line> => {
    const answer = await fetch(`${url}/sandbox${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await answer.json()) as Line;
  };
  return {
    url,
    jobEnd: async (records) => {
      const run = (await admin('/jobs/S7781/run', { records, duration_ms: 0 })) as {
        job_instance: { id: string };
      };
      await new Promise((resolve) => setTimeout(resolve, 50));
      const fired = (await admin('/events', {
        kind: 'job_end',
        instance_id: run.job_instance.id,
      })) as { event: Line & { id: string } };
      return fired.event;
    },
    stop: sandbox.stop,
  };
}
