import { setTimeout as delay } from 'node:timers/promises';
import type { Job } from 'bullmq';
import { findJob } from '../operations/find-job';
import { isRecord } from '../is-record';
import { TEST_EVENT_OUTCOME } from '../worker/handler-registry';
import type { CliIo } from './cli-io';
import { openCliQueue } from './open-cli-queue';

/** How often the job is looked at while it is followed. */
const POLL_MS = 200;

/**
 * send-test-event's event after the listener's 200: its job on the event queue (REDIS_URL,
 * QUEUE_NAME), looked at until a worker has completed it as a test event, or failed it, or the
 * deadline passes. Without REDIS_URL it says how to follow it; 0 when it completed as a test event.
 */
export async function followTestEvent(io: CliIo, eventId: string, deadlineMs: number) {
  if (io.env.REDIS_URL === undefined || io.env.REDIS_URL === '') {
    io.out('  (set REDIS_URL and QUEUE_NAME to follow it to the worker)');
    return 0;
  }
  const cli = await openCliQueue(io.env);
  try {
    const said = new Set<string>();
    const say = (step: string, line: string) => {
      if (!said.has(step)) io.out(line);
      said.add(step);
    };
    const deadline = Date.now() + deadlineMs;
    let state = 'not found';
    while (Date.now() < deadline) {
      const job = await findJob(cli.queue, eventId);
      state = job === undefined ? 'not found' : await job.getState();
      if (job !== undefined) say('queued', `→ queued: job ${job.id ?? ''} on ${cli.queue.name}`);
      if (job !== undefined && (state === 'completed' || state === 'failed')) {
        // Read again: the job read above may predate its end (taken then, finished before the
        // state was asked), and its return value would be missing.
        return ended(io, (await findJob(cli.queue, eventId)) ?? job, state);
      }
      if (state === 'active') say('active', '→ taken by a worker');
      await delay(POLL_MS);
    }
    io.err(
      `✗ not completed within ${String(deadlineMs / 1000)} s (its job: ${state}): is a worker running on ${cli.queue.name}?`,
    );
    return 1;
  } finally {
    await cli.close();
  }
}

function ended(io: CliIo, job: Job, state: 'completed' | 'failed'): number {
  if (state === 'failed') {
    io.err(`✗ the worker failed it: ${job.failedReason || '(no reason given)'}`);
    return 1;
  }
  const value: unknown = job.returnvalue;
  if (isRecord(value) && value.outcome === TEST_EVENT_OUTCOME) {
    io.out('✓ completed as a test event: no API call, no handler, no route delivery');
    return 0;
  }
  io.err('✗ completed, but not as a test event: is the worker older than this CLI?');
  return 1;
}
