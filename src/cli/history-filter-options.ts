import type { HistoryFilters } from '../history';
import { CliUsageError } from './cli-usage-error';
import type { CommandArgs } from './parse-command-args';
import { positiveIntOption } from './parse-command-args';

/** The search filters every history command takes (`history search`, `history replay`). */
export const HISTORY_FILTER_OPTIONS = {
  id: { type: 'string' },
  user: { type: 'string' },
  barcode: { type: 'string' },
  mms: { type: 'string' },
  loan: { type: 'string' },
  request: { type: 'string' },
  'job-instance': { type: 'string' },
  institution: { type: 'string' },
  action: { type: 'string' },
  event: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  route: { type: 'string' },
  outcome: { type: 'string' },
  limit: { type: 'string' },
  after: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const OUTCOMES = ['delivered', 'failed', 'pending', 'skipped'] as const;

export function timeOption(
  command: string,
  name: string,
  value: string | undefined,
): Date | undefined {
  if (value === undefined) return undefined;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) {
    throw new CliUsageError(
      `${command}: --${name} must be an ISO time such as 2024-11-07T14:00:00Z`,
    );
  }
  return time;
}

/** The options as filters, or a usage error naming the option at fault. */
export function historyFiltersOf(
  command: string,
  values: CommandArgs<typeof HISTORY_FILTER_OPTIONS>['values'],
): HistoryFilters {
  const outcome = values.outcome;
  if (outcome !== undefined && !(OUTCOMES as readonly string[]).includes(outcome)) {
    throw new CliUsageError(`${command}: --outcome is one of ${OUTCOMES.join(', ')}`);
  }
  if ((outcome === undefined) !== (values.route === undefined) && command.endsWith('search')) {
    throw new CliUsageError(`${command}: --route and --outcome go together`);
  }
  const since = timeOption(command, 'since', values.since);
  const until = timeOption(command, 'until', values.until);
  const filters: Record<string, unknown> = {
    id: values.id,
    user: values.user,
    barcode: values.barcode,
    mms: values.mms,
    loan: values.loan,
    request: values.request,
    jobInstance: values['job-instance'],
    institution: values.institution,
    action: values.action,
    event: values.event,
    since,
    until,
    route: outcome === undefined ? undefined : values.route,
    outcome,
    limit: positiveIntOption(command, 'limit', values.limit, 50),
    after: values.after,
  };
  return Object.fromEntries(
    Object.entries(filters).filter(([, value]) => value !== undefined),
  ) as HistoryFilters;
}
