import { listSetAside } from '../history';
import type { SetAsideEntry } from '../history';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { openCliHistory } from './open-cli-history';
import { parseCommandArgs, positiveIntOption } from './parse-command-args';

const OPTIONS = {
  institution: { type: 'string' },
  limit: { type: 'string' },
  before: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** One line per record: when, kind, institution, event id, SQLSTATE and PostgreSQL's reason. */
function setAsideLine(entry: SetAsideEntry): string {
  const patron = entry.patron ? ' (patron)' : '';
  return `${entry.setAsideAt}  ${entry.recordType}${patron}  ${entry.institution || '-'}  ${entry.eventId || '-'}  ${entry.sqlstate}  ${entry.reason}`;
}

/**
 * `history set-aside [--institution <code>] [--limit N] [--before <cursor>] [--json]`: the records
 * PostgreSQL refused for their data, newest first (docs/history.md, "Records set aside").
 */
export async function historySetAsideCommand(args: string[], io: CliIo): Promise<number> {
  const command = 'history set-aside';
  const { values, positionals } = parseCommandArgs(command, args, OPTIONS);
  if (positionals.length > 0) throw new CliUsageError(`${command}: takes no arguments`);
  if (values.before !== undefined && Number.isNaN(new Date(values.before).getTime())) {
    throw new CliUsageError(`${command}: --before must be an ISO time (the cursor printed)`);
  }
  const limit = positiveIntOption(command, 'limit', values.limit, 50);
  const history = await openCliHistory(io);
  if (history === undefined) return 1;
  try {
    const page = await listSetAside(history.db, {
      institution: values.institution,
      before: values.before,
      limit,
    });
    if (values.json === true) io.out(JSON.stringify(page));
    else {
      for (const entry of page.items) io.out(setAsideLine(entry));
      io.out(`${String(page.items.length)} records set aside.`);
      if (page.next !== undefined) io.out(`More: --before ${page.next}`);
    }
    return 0;
  } finally {
    await history.db.close();
  }
}
