import type { Job, Queue } from 'bullmq';
import { jobIdForEvent } from '../events/job-id-for-event';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { openRouteQueues, routeNamed } from './open-route-queues';
import { parseCommandArgs } from './parse-command-args';
import { keepCliAction } from './keep-cli-action';
import { allFailedJobs } from '../operations/replay-failed-job';
import { replayFailedJobs } from './replay-failed-jobs';

/**
 * `routes replay <name> <id>|--all`: failed deliveries of one route back to waiting, their attempts
 * reset. Only that route's destination receives them again; the other routes are not touched.
 */
export async function routesReplayCommand(args: string[], io: CliIo): Promise<number> {
  const command = 'routes replay';
  const { values, positionals } = parseCommandArgs(command, args, { all: { type: 'boolean' } });
  const [name, id, ...rest] = positionals;
  const all = values.all === true;
  if (name === undefined || rest.length > 0 || all === (id !== undefined)) {
    throw new CliUsageError(
      `${command}: give a route name and either one event id (or job id) or --all`,
    );
  }
  const cli = await openRouteQueues(io.env);
  try {
    const route = routeNamed(cli.routes, name, command);
    const queue = cli.queues.get(route.name);
    if (queue === undefined) return 1;
    const jobs = all ? await allFailedJobs(queue) : await oneFailed(queue, id ?? '', io);
    if (jobs === undefined) return 1;
    const replayed = await replayFailedJobs(
      jobs,
      io,
      (job) => `${job.id ?? ''} on route ${route.name}`,
    );
    await keepCliAction(
      io,
      cli,
      {
        action: 'replay',
        target: `route ${route.name}`,
        outcome: replayed === jobs.length ? 'done' : 'failed',
        count: replayed,
      },
      { details: { route: route.name, failedJobs: all ? 'all' : (id ?? '') }, count: replayed },
    );
    io.out(
      `${String(replayed)} of ${String(jobs.length)} failed deliveries replayed on route ${route.name}.`,
    );
    return replayed === jobs.length ? 0 : 1;
  } finally {
    await cli.close();
  }
}

async function oneFailed(queue: Queue, id: string, io: CliIo): Promise<Job[] | undefined> {
  const job = (await queue.getJob(id)) ?? (await queue.getJob(jobIdForEvent(id)));
  if (job === undefined) {
    io.err(`No delivery ${id} on this route (neither a job id nor an event id).`);
    return undefined;
  }
  const state = await job.getState();
  if (state !== 'failed') {
    io.err(
      `Delivery ${job.id ?? ''} is ${state}, not failed: only failed deliveries are replayed.`,
    );
    return undefined;
  }
  return [job];
}
