import { migrateHistory, pruneHistory } from '../history';
import type { CliIo } from './cli-io';
import { openCliHistory } from './open-cli-history';
import { parseCommandArgs } from './parse-command-args';

/** `history migrate` and `history prune` (retention now), each with `--json`. */
export async function historyMaintenanceCommand(
  sub: 'migrate' | 'prune',
  args: string[],
  io: CliIo,
): Promise<number> {
  const { values } = parseCommandArgs(`history ${sub}`, args, { json: { type: 'boolean' } });
  const history = await openCliHistory(io);
  if (history === undefined) return 1;
  try {
    if (sub === 'migrate') {
      const result = await migrateHistory(history.db);
      if (values.json === true) io.out(JSON.stringify(result));
      else {
        io.out(
          result.applied.length === 0
            ? `History schema up to date (version ${String(result.current)}).`
            : `Applied versions ${result.applied.join(', ')}; now at version ${String(result.current)}.`,
        );
      }
      return 0;
    }
    const result = await pruneHistory(history.db, {
      days: history.config.HISTORY_RETENTION_DAYS,
      patronDays: history.config.HISTORY_PATRON_RETENTION_DAYS,
    });
    if (values.json === true) io.out(JSON.stringify(result));
    else {
      io.out(
        `Dropped ${String(result.dropped.length)} day partitions${result.dropped.length > 0 ? `: ${result.dropped.join(', ')}` : ''}.`,
      );
      io.out(
        `Deleted ${String(result.jobOutcomes)} job outcomes and ${String(result.audit)} audit entries.`,
      );
    }
    return 0;
  } finally {
    await history.db.close();
  }
}
