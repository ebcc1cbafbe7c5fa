import { countOf } from '../count-of';
import { auditPersonSearch, searchHistory } from '../history';
import type { HistoryEventSummary } from '../history';
import type { CliIo } from './cli-io';
import { historyActor } from './history-actor';
import { HISTORY_FILTER_OPTIONS, historyFiltersOf } from './history-filter-options';
import { openCliHistory } from './open-cli-history';
import { parseCommandArgs } from './parse-command-args';

/** One line per event: when, institution, id, action/code, identifiers. */
export function eventLine(item: HistoryEventSummary): string {
  const ids = [
    ...item.barcodes.map((b) => `barcode ${b}`),
    ...item.mmsIds.map((m) => `mms ${m}`),
    ...item.loanIds.map((l) => `loan ${l}`),
    ...item.requestIds.map((r) => `request ${r}`),
    ...item.jobInstanceIds.map((j) => `job ${j}`),
  ];
  const code = item.eventCode === null ? '' : `/${item.eventCode}`;
  const patron = item.patron ? ' (patron)' : '';
  const recovered = item.recovered ? ' (recovered)' : '';
  return `${item.receivedAt}  ${item.institution || '-'}  ${item.eventId}  ${item.action}${code}${patron}${recovered}  ${ids.join(', ')}`;
}

/** `history search [filters] [--json]`: one page, newest first, and the cursor of the next. */
export async function historySearchCommand(args: string[], io: CliIo): Promise<number> {
  const command = 'history search';
  const { values } = parseCommandArgs(command, args, HISTORY_FILTER_OPTIONS);
  const filters = historyFiltersOf(command, values);
  const history = await openCliHistory(io);
  if (history === undefined) return 1;
  try {
    if (filters.user !== undefined) {
      const person = { actor: historyActor(), person: filters.user, details: { outcome: 'done' } };
      await auditPersonSearch(history, { ...person, action: 'history.search.person' });
    }
    const page = await searchHistory(history, filters);
    if (values.json === true) io.out(JSON.stringify(page));
    else {
      for (const item of page.items) io.out(eventLine(item));
      io.out(`${countOf(page.items.length, 'event')}.`);
      if (page.next !== undefined) io.out(`More: --after ${page.next}`);
    }
    return 0;
  } finally {
    await history.db.close();
  }
}
