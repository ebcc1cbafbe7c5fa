import type { JobDefinition, JobKind, JobOutcome } from './job-catalog';

/** Instance statuses (docs/platform-shapes.md; the spec does not show them). */
export const INSTANCE_STATUSES = {
  QUEUED: 'Queued',
  PENDING: 'Pending',
  INITIALIZING: 'Initializing',
  RUNNING: 'Running',
  COMPLETED_SUCCESS: 'Completed Successfully',
  COMPLETED_NO_BULKS: 'Completed - No Bulks',
  COMPLETED_WARNINGS: 'Completed with Warnings',
  COMPLETED_FAILED: 'Completed with Errors',
  FAILED: 'Failed',
  ABORTED: 'Aborted',
  SYSTEM_ABORTED: 'System Aborted',
  MANUAL_ABORTED: 'Manually Aborted',
} as const;
export type InstanceStatus = keyof typeof INSTANCE_STATUSES;

export const FINAL_STATUS: Record<JobOutcome, InstanceStatus> = {
  success: 'COMPLETED_SUCCESS',
  warnings: 'COMPLETED_WARNINGS',
  failed: 'COMPLETED_FAILED',
  empty: 'COMPLETED_NO_BULKS',
};

export interface JobInstance {
  readonly id: string;
  readonly job: JobDefinition;
  readonly name: string;
  readonly submittedBy: 'api' | 'scheduler' | 'sandbox';
  /** Counts toward the §4.3 rule 1 and rule 2 thresholds. */
  readonly apiStarted: boolean;
  readonly submitTime: Date;
  readonly durationMs: number;
  /** Records the run handles; the counters are derived from it. */
  readonly records: number;
  /** Set when the run ends (by the sandbox's timer, or at seed time for past runs). */
  end?: { readonly status: InstanceStatus; readonly time: Date };
}

export interface Counter {
  readonly type: string;
  readonly desc: string;
  readonly value: number;
}

/** Queued for the first tenth of the run, then running with progress rising, then ended. */
const QUEUED_SHARE = 0.1;

export interface InstanceState {
  readonly status: InstanceStatus;
  readonly progress: number;
  readonly startTime?: Date;
  readonly endTime?: Date;
}

export function stateAt(instance: JobInstance, now: Date): InstanceState {
  const startTime = new Date(instance.submitTime.getTime() + instance.durationMs * QUEUED_SHARE);
  if (instance.end) {
    return { status: instance.end.status, progress: 100, startTime, endTime: instance.end.time };
  }
  const elapsed = now.getTime() - instance.submitTime.getTime();
  if (elapsed < instance.durationMs * QUEUED_SHARE || instance.durationMs === 0) {
    return { status: 'QUEUED', progress: 0 };
  }
  const progress = Math.min(99, Math.floor((elapsed / instance.durationMs) * 100));
  return { status: 'RUNNING', progress, startTime };
}

/** What the run did once complete; while it runs, the values scale with its progress. */
export function countersOf(instance: JobInstance, progress: number): Counter[] {
  const share = progress / 100;
  return finalCounters(instance.job.kind, instance.job.outcome, instance.records).map(
    ([type, desc, value]) => ({ type, desc, value: Math.floor(value * share) }),
  );
}

type CounterRow = readonly [type: string, desc: string, value: number];

function finalCounters(kind: JobKind, outcome: JobOutcome, records: number): CounterRow[] {
  const rejected =
    outcome === 'failed' ? records : outcome === 'warnings' ? Math.ceil(records * 0.04) : 0;
  const done = outcome === 'empty' ? 0 : records - rejected;
  switch (kind) {
    case 'import': {
      const created = Math.ceil(done * 0.8);
      return [
        ['TOTAL_RECORDS_IMPORTED', 'Total records imported', done],
        ['NEW_RECORDS', 'New records', created],
        ['MERGED_RECORDS', 'Records merged with existing ones', done - created],
        ['RECORDS_REJECTED', 'Records rejected', rejected],
      ];
    }
    case 'users': {
      const created = Math.ceil(done * 0.3);
      return [
        ['USERS_CREATED', 'Users created', created],
        ['USERS_UPDATED', 'Users updated', done - created],
        ['USERS_REJECTED', 'Users rejected', rejected],
      ];
    }
    case 'export':
      return [
        ['TOTAL_RECORDS_EXPORTED', 'Total records exported', done],
        ['RECORDS_FAILED', 'Records failed', rejected],
      ];
    case 'generic':
      return [
        ['TOTAL_RECORDS_PROCESSED', 'Total records processed', done],
        ['RECORDS_FAILED', 'Records failed', rejected],
      ];
  }
}

const ALERTS: Partial<Record<InstanceStatus, readonly [string, string]>> = {
  COMPLETED_SUCCESS: ['alert_general_success', 'The job completed successfully.'],
  COMPLETED_NO_BULKS: ['alert_general_no_bulks', 'The job completed; there was nothing to load.'],
  COMPLETED_WARNINGS: ['alert_general_warnings', 'The job completed with warnings.'],
  COMPLETED_FAILED: ['alert_general_errors', 'The job completed with errors.'],
};

export function alertsOf(status: InstanceStatus): { value: string; desc: string }[] {
  const alert = ALERTS[status];
  return alert ? [{ value: alert[0], desc: alert[1] }] : [];
}
