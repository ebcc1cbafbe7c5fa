import type { CliIo } from './cli-io';
import { jobSummary } from './job-summary';
import type { JobSummary } from './job-summary';
import { openCliQueue } from './open-cli-queue';
import { parseCommandArgs, positiveIntOption } from './parse-command-args';
import { CliUsageError } from './cli-usage-error';

const REASON_WIDTH = 70;

/** `failed [--limit N] [--json]`: the dead letters, newest failure first. */
export async function failedCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('failed', args, {
    limit: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length > 0) {
    throw new CliUsageError(`failed: unexpected argument '${positionals[0] ?? ''}'`);
  }
  const limit = positiveIntOption('failed', 'limit', values.limit, 50);
  const cli = await openCliQueue(io.env);
  try {
    const [total, jobs] = await Promise.all([
      cli.queue.getFailedCount(),
      cli.queue.getFailed(0, limit - 1),
    ]);
    const rows = jobs.map((job) => jobSummary(job, 'failed'));
    if (values.json === true) {
      io.out(JSON.stringify({ queue: cli.queue.name, total, jobs: rows }, null, 2));
      return 0;
    }
    if (total === 0) {
      io.out(`No failed jobs in queue ${cli.queue.name} (${cli.target}).`);
      return 0;
    }
    io.out(
      `${String(total)} failed job${total === 1 ? '' : 's'} in queue ${cli.queue.name}` +
        (rows.length < total ? ` (the ${String(rows.length)} most recent)` : ''),
    );
    io.out('');
    for (const line of table(rows)) io.out(line);
    io.out('');
    io.out('`show <id>` prints one in full; `replay <id>` or `replay --all` moves them back.');
    return 0;
  } finally {
    await cli.close();
  }
}

function table(rows: JobSummary[]): string[] {
  const cells = rows.map((row) => [
    row.jobId,
    row.action,
    `${String(row.attemptsMade)}/${String(row.attempts)}`,
    row.finishedAt?.replace(/\.\d{3}Z$/, 'Z') ?? '',
    oneLine(row.failedReason ?? ''),
  ]);
  const header = ['JOB ID', 'ACTION', 'ATTEMPTS', 'FAILED AT', 'REASON'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((cell) => (cell[column] ?? '').length)),
  );
  return [header, ...cells].map((cell) =>
    cell
      .map((text, column) => (column === cell.length - 1 ? text : text.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

function oneLine(reason: string): string {
  const flat = reason.replace(/\s+/g, ' ').trim();
  return flat.length > REASON_WIDTH ? `${flat.slice(0, REASON_WIDTH - 1)}…` : flat;
}
