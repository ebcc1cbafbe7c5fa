import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSvcClient } from '@svcws/client';
import { createDemoCleanups } from './demo-cleanups';
import { ms } from './demo-narrator';
import type { DemoOutput } from './demo-output';
import { demoRedis, NoRedisError } from './demo-redis';
import type { DemoRedis } from './demo-redis';
import { followDemoEvent } from './follow-demo-event';
import { API_KEY, IMPORT_JOB, startDemoParts } from './start-demo-parts';
import type { DemoParts, DemoSettings } from './start-demo-parts';
import { watchDemo } from './watch-demo';

/**
 * The demo once its code is loaded: a Redis, the parts, the listener registered, the import job
 * run and followed to its records, then (`--watch`) the console until Ctrl-C. Everything it
 * opened is closed, and its keys removed from Redis, whatever happens. The exit status.
 */
export async function runDemo(settings: DemoSettings, out: DemoOutput): Promise<number> {
  const interruption = interruptionBySignal();
  const redis = await redisOrAdvice(settings, out);
  if (redis === undefined) return 1;
  const cleanups = createDemoCleanups(out.print);
  cleanups.push(redis.stop);
  let dir: string | undefined;
  try {
    dir = await mkdtemp(path.join(tmpdir(), 'svcws-demo-'));
    const parts = await startDemoParts(settings, redis, dir, out, cleanups);
    out.print();
    const code = await runImportJob(parts, settings, out, interruption);
    if (code !== 0 || !settings.watch) return code;
    await watchDemo(parts, settings, out, cleanups, interruption);
    return 0;
  } finally {
    await cleanups.run();
    out.print();
    out.print(
      `Done in ${ms(out.elapsedMs())}. Queue and history keys removed from Redis` +
        (dir === undefined ? '.' : `; logs, records and the archive stay in ${dir}.`),
    );
  }
}

/**
 * The cluster REDIS_CLUSTER_NODES names, the Redis at REDIS_URL, or a private one; undefined (and
 * advice on stderr) when none.
 */
async function redisOrAdvice(
  settings: DemoSettings,
  out: DemoOutput,
): Promise<DemoRedis | undefined> {
  out.say('…', 'looking for Redis');
  try {
    return await demoRedis(settings.env, (line) => out.say('…', line));
  } catch (error) {
    if (!(error instanceof NoRedisError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return undefined;
  }
}

/** Registers the listener (the sandbox sends the challenge, spec §6.1) and runs the import job. */
async function runImportJob(
  parts: DemoParts,
  settings: DemoSettings,
  out: DemoOutput,
  interruption: Promise<'interrupted'>,
): Promise<number> {
  const registered = await parts.sandbox.webhooks.register({
    url: parts.listenerUrl,
    secret: parts.secret,
    format: settings.webhookFormat,
    events: ['job_end'],
  });
  if (!registered.ok) {
    out.say('✗', `the sandbox refused to register the listener: ${registered.reason}`);
    return 1;
  }
  out.say(
    '✓',
    `listener registered with the platform: it echoed the challenge (${registered.profile.id})`,
  );
  const instanceId = await startImportJob(parts.platformUrl);
  if (instanceId === undefined) {
    out.say('✗', 'the platform did not name the new job instance');
    return 1;
  }
  out.say('✓', `import job ${IMPORT_JOB} started through the API: instance ${instanceId}`);
  out.say(
    '…',
    `the job runs in the sandbox (${ms(settings.jobDurationMs)}); its end sends the job_end webhook`,
  );
  return followDemoEvent(parts, instanceId, out, { timeoutMs: settings.timeoutMs, interruption });
}

/** Runs the import job through the API client, as an institution's script would. */
async function startImportJob(platformUrl: string): Promise<string | undefined> {
  const institution = createSvcClient({ baseUrl: platformUrl, apiKey: API_KEY });
  const job = await institution.request('GET /conf/jobs/{job_id}', {
    path: { job_id: IMPORT_JOB },
  });
  const answer = await institution.request('POST /conf/jobs/{job_id}', {
    path: { job_id: IMPORT_JOB },
    query: { op: 'run' },
    body: job,
  });
  const info = (answer as { additional_info?: { link?: unknown } } | undefined)?.additional_info;
  const link = typeof info?.link === 'string' ? info.link : '';
  return /\/instances\/(\d+)$/.exec(link)?.[1];
}

function interruptionBySignal(): Promise<'interrupted'> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('interrupted'));
    process.once('SIGTERM', () => resolve('interrupted'));
  });
}
