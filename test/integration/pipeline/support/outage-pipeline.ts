import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrivateRedis } from '../../../helpers/private-redis';
import type { PrivateRedis } from '../../../helpers/private-redis';
import { startRecordingHttpReceiver } from '../../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../../helpers/recording-http-receiver';
import { killChildren, spawnWorker } from '../../worker/support/child-process';
import type { ChildWorker } from '../../worker/support/child-process';

/** The routes: every event over HTTP and to a JSONL archive, loans and requests over HTTP too. */
export const OUTAGE_ROUTES = ['everything', 'archive', 'circulation'] as const;
export type OutageRoute = (typeof OUTAGE_ROUTES)[number];
/** The actions `circulation` matches. */
export const CIRCULATION_ACTIONS: ReadonlySet<string> = new Set(['loan', 'request']);

export interface OutagePipeline {
  readonly redis: PrivateRedis;
  readonly receiver: RecordingHttpReceiver;
  readonly web: ChildWorker;
  readonly worker: ChildWorker;
  /** The listener's port (deliveries and /metrics). */
  readonly port: number;
  readonly queueName: string;
  readonly spoolDir: string;
  readonly archiveDir: string;
  readonly secret: string;
  close: () => Promise<void>;
}

function routesYaml(receiver: RecordingHttpReceiver, archiveDir: string): string {
  return [
    'routes:',
    '  - name: everything',
    `    to: { http: { url: "${receiver.origin}/everything" } }`,
    '  - name: archive',
    `    to: { file: { dir: "${archiveDir}" } }`,
    '  - name: circulation',
    '    match: { action: [loan, request] }',
    `    to: { http: { url: "${receiver.origin}/circulation" } }`,
    '',
  ].join('\n');
}

/**
 * A private redis-server, the listener process (src/bin/web.ts) with a spool on a temp dir, and
 * the worker process (src/bin/worker.ts) routing to a recording HTTP receiver and a JSONL archive:
 * no destination depends on Redis.
 */
export async function startOutagePipeline(): Promise<OutagePipeline> {
  const redis = await startPrivateRedis();
  const dir = await mkdtemp(join(tmpdir(), 'redis-outage-'));
  // Answers after 50 ms, as a real endpoint might: at 100 events/s some are always being delivered,
  // so some are in flight when Redis stops (src/worker/outage-safe-worker.ts).
  const receiver = await startRecordingHttpReceiver(200, { answerAfterMs: 50 });
  const archiveDir = join(dir, 'archive');
  await writeFile(join(dir, 'routes.yaml'), routesYaml(receiver, archiveDir));
  const queueName = 'outage';
  const secret = 'redis-outage-secret-of-the-test';
  const common = { REDIS_URL: redis.url, QUEUE_NAME: queueName };
  const worker = spawnWorker('src/bin/worker.ts', {
    ...common,
    ROUTES_FILE: join(dir, 'routes.yaml'),
    RECORDS_DIR: join(dir, 'records'),
    WORKER_METRICS_PORT: '0',
    // 16 events at once: the backlog of the outage is delivered at about 300/s despite the 50 ms.
    WORKER_CONCURRENCY: '16',
    // No job_end is sent: the platform's API is never called, nor reconciled against.
    SVC_BASE_URL: 'http://127.0.0.1:9',
    SVC_API_KEY: 'unused',
    RECONCILE_INTERVAL_SECONDS: '0',
  });
  await worker.waitForLine((line) => line.msg === 'worker ready');
  const spoolDir = join(dir, 'spool');
  const web = spawnWorker('src/bin/web.ts', {
    ...common,
    PORT: '0',
    WEBHOOK_SECRET: secret,
    SPOOL_DIR: spoolDir,
  });
  const port = Number((await web.waitForLine((line) => line.msg === 'listener ready')).port);
  const close = async (): Promise<void> => {
    await killChildren([web, worker]);
    await receiver.close();
    await redis.close();
    await rm(dir, { recursive: true, force: true });
  };
  return { redis, receiver, web, worker, port, queueName, spoolDir, archiveDir, secret, close };
}
