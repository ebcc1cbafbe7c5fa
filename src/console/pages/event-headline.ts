import type { HistoryEventSummary } from '../../history';

/**
 * The event page's header line: only what the history knows of the event, joined by ` · `. A
 * field a kind does not have (a job_end has no event code; most kinds no job instance) is left
 * out, not shown as a dash between two separators.
 */
export function eventHeadline(event: HistoryEventSummary): string {
  const jobs = event.jobInstanceIds;
  const parts = [
    event.institution,
    event.action,
    event.eventCode,
    jobs.length === 0 ? undefined : `job instance ${jobs.join(', ')}`,
    `received ${event.receivedAt}`,
  ];
  return parts
    .filter((part): part is string => typeof part === 'string' && part !== '')
    .join(' · ');
}
