import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { findJob } from '../operations/find-job';
import { jobSummary } from './job-summary';
import { openCliQueue } from './open-cli-queue';
import { parseCommandArgs } from './parse-command-args';

/** `show <id> [--json]`: one job in full — state, attempts, reason, last stack, the event. */
export async function showCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('show', args, { json: { type: 'boolean' } });
  const [id, extra] = positionals;
  if (id === undefined) throw new CliUsageError('show: which job? give its job id or event id');
  if (extra !== undefined) throw new CliUsageError(`show: unexpected argument '${extra}'`);

  const cli = await openCliQueue(io.env);
  try {
    const job = await findJob(cli.queue, id);
    if (!job) {
      io.err(`No job ${id} in queue ${cli.queue.name} (neither a job id nor an event id).`);
      return 1;
    }
    const summary = jobSummary(job, await job.getState());
    const stacktrace = job.stacktrace ?? [];
    const stack = stacktrace.at(-1);
    if (values.json === true) {
      io.out(JSON.stringify({ ...summary, stacktrace, data: job.data }, null, 2));
      return 0;
    }
    const fields: [string, string | undefined][] = [
      ['job', summary.jobId],
      ['event', summary.eventId],
      ['action', summary.action],
      ['state', summary.state],
      ['attempts', `${String(summary.attemptsMade)} of ${String(summary.attempts)}`],
      ['added', summary.addedAt],
      ['processed', summary.processedAt],
      ['finished', summary.finishedAt],
      ['reason', summary.failedReason],
    ];
    for (const [name, value] of fields) {
      if (value !== undefined) io.out(`${name.padEnd(10)}${value}`);
    }
    if (stack !== undefined) {
      io.out('last stack');
      for (const line of stack.split('\n').slice(0, 8)) io.out(`  ${line}`);
    }
    io.out('event');
    for (const line of JSON.stringify(job.data, null, 2).split('\n')) io.out(`  ${line}`);
    return 0;
  } finally {
    await cli.close();
  }
}
