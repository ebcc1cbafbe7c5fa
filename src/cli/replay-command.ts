import type { Job, Queue } from 'bullmq';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { findJob } from '../operations/find-job';
import { openCliQueue } from './open-cli-queue';
import { parseCommandArgs } from './parse-command-args';
import { allFailedJobs } from '../operations/replay-failed-job';
import { replayFailedJobs } from './replay-failed-jobs';
import { cliLogger } from './cli-logger';
import { historyActor } from './history-actor';
import { logOperatorAction } from '../operations/operator-action';

/**
 * `replay <id>` / `replay --all`: failed jobs back to waiting (BullMQ `job.retry('failed')`), with
 * their attempts reset, so a replay after a fix gets the whole retry budget again instead of
 * failing for good at its first error.
 */
export async function replayCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('replay', args, { all: { type: 'boolean' } });
  const all = values.all === true;
  if (all && positionals.length > 0) {
    throw new CliUsageError('replay: give either a job id or --all, not both');
  }
  if (!all && positionals.length !== 1) {
    throw new CliUsageError('replay: give one job id (or event id), or --all');
  }

  const cli = await openCliQueue(io.env);
  try {
    const jobs = all
      ? await allFailedJobs(cli.queue)
      : await oneFailed(cli.queue, positionals[0], io);
    if (jobs === undefined) return 1;
    if (jobs.length === 0) {
      io.out(`No failed jobs to replay in queue ${cli.queue.name}.`);
      return 0;
    }
    const replayed = await replayFailedJobs(
      jobs,
      io,
      (job) => `${job.id ?? '(no id)'} (${job.name})`,
    );
    logOperatorAction(cliLogger(io), 'cli', {
      actor: historyActor(),
      action: 'replay',
      target: `queue ${cli.queue.name}`,
      outcome: replayed === jobs.length ? 'done' : 'failed',
      count: replayed,
    });
    io.out(
      `${String(replayed)} of ${String(jobs.length)} failed job${jobs.length === 1 ? '' : 's'} replayed in queue ${cli.queue.name}.`,
    );
    return replayed === jobs.length ? 0 : 1;
  } finally {
    await cli.close();
  }
}

async function oneFailed(
  queue: Queue,
  id: string | undefined,
  io: CliIo,
): Promise<Job[] | undefined> {
  const job = id === undefined ? undefined : await findJob(queue, id);
  if (!job) {
    io.err(`No job ${id ?? ''} in queue ${queue.name} (neither a job id nor an event id).`);
    return undefined;
  }
  const state = await job.getState();
  if (state !== 'failed') {
    io.err(`Job ${job.id ?? ''} is ${state}, not failed: only failed jobs are replayed.`);
    return undefined;
  }
  return [job];
}
