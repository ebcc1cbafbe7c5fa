import type { Queue } from 'bullmq';
import { PAUSE_CONFIRMED_FOR_MS } from './paused-state';

/** A little over PAUSE_CONFIRMED_FOR_MS: timers fire late, never early. */
const PAUSE_HOLDS_AFTER_MS = PAUSE_CONFIRMED_FOR_MS + 100;

/**
 * Pauses or resumes a route for every worker process (BullMQ's queue pause). A pause resolves
 * only once it holds: no attempt of the route starts afterwards in any process, inline or queued
 * (paused-state.ts: an attempt starts only on a read of the pause sent under
 * PAUSE_CONFIRMED_FOR_MS ago, so waiting longer than that after the pause is in Redis leaves no
 * read that could still say "running"). The CLI's `routes pause`, the console and the API call
 * this. A resume answers at once; deliveries start again within a read period.
 */
export async function setRoutePaused(
  queue: Queue,
  paused: boolean,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<void> {
  if (!paused) {
    await queue.resume();
    return;
  }
  await queue.pause();
  await sleep(PAUSE_HOLDS_AFTER_MS);
}
