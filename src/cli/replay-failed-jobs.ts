import type { Job } from 'bullmq';
import { messageOf } from '../message-of';
import { replayFailedJob } from '../operations/replay-failed-job';
import type { CliIo } from './cli-io';

/** Failed jobs back to waiting (replayFailedJob), saying each one's outcome; returns how many. */
export async function replayFailedJobs(
  jobs: readonly Job[],
  io: CliIo,
  labelOf: (job: Job) => string,
): Promise<number> {
  let replayed = 0;
  for (const job of jobs) {
    const label = labelOf(job);
    try {
      await replayFailedJob(job);
      replayed += 1;
      io.out(`✓ replayed ${label}: failed → waiting`);
    } catch (error) {
      io.err(`✗ ${label} not replayed: ${messageOf(error)}`);
    }
  }
  return replayed;
}
