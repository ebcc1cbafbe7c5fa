import type { TimerSet } from '../timer-set';
import { JOB_CATALOG } from './job-catalog';
import type { JobDefinition } from './job-catalog';
import { FINAL_STATUS } from './job-instance';
import type { JobInstance } from './job-instance';

export interface JobStoreOptions {
  readonly now: () => Date;
  readonly random: () => number;
  readonly timers: TimerSet;
  /** SANDBOX_JOB_DURATION_MS: how long a run takes from submit to its end. */
  readonly durationMs: number;
  /** SANDBOX_RECORD_COUNT: records a run handles unless the admin run says otherwise. */
  readonly recordCount: number;
  /** Called once per run when it ends (the webhook's job_end). */
  readonly onInstanceEnd: (instance: JobInstance) => void;
}

export interface RunOptions {
  readonly submittedBy: JobInstance['submittedBy'];
  readonly records?: number;
  readonly durationMs?: number;
}

export interface JobStore {
  readonly jobs: () => readonly JobDefinition[];
  readonly job: (id: string) => JobDefinition | undefined;
  /** Newest first; all jobs' instances when jobId is undefined. */
  readonly instances: (jobId?: string) => JobInstance[];
  readonly instance: (id: string) => JobInstance | undefined;
  /** Starts a run with no rule checks (those are the route's: submit-rules.ts). */
  readonly run: (job: JobDefinition, options: RunOptions) => JobInstance;
}

const FIRST_INSTANCE_ID = 5871043560000561;
const PAST_RUNS_PER_JOB = 3;
const DAY_MS = 86_400_000;

/** The jobs and their instances in memory, seeded with a few past runs of every job. */
export function createJobStore(options: JobStoreOptions): JobStore {
  const { now, random, timers } = options;
  const byId = new Map<string, JobInstance>();
  let sequence = 0;
  const nextId = (): string => String(FIRST_INSTANCE_ID + 1000 * sequence++);

  const add = (instance: JobInstance): JobInstance => {
    byId.set(instance.id, instance);
    return instance;
  };

  for (const past of pastRuns(now(), random)) {
    const end = {
      status: FINAL_STATUS[past.job.outcome],
      time: new Date(past.submitTime.getTime() + past.durationMs),
    };
    add({ ...past, id: nextId(), name: instanceName(past.job, past.submitTime), end });
  }

  return {
    jobs: () => JOB_CATALOG,
    job: (id) => JOB_CATALOG.find((job) => job.id === id),
    instances: (jobId) =>
      [...byId.values()]
        .filter((instance) => jobId === undefined || instance.job.id === jobId)
        .sort(
          (a, b) => b.submitTime.getTime() - a.submitTime.getTime() || b.id.localeCompare(a.id),
        ),
    instance: (id) => byId.get(id),
    run(job, { submittedBy, records = options.recordCount, durationMs = options.durationMs }) {
      const submitTime = now();
      const instance = add({
        id: nextId(),
        job,
        name: instanceName(job, submitTime),
        submittedBy,
        apiStarted: submittedBy === 'api',
        submitTime,
        durationMs,
        records: job.outcome === 'empty' ? 0 : records,
      });
      timers.after(durationMs, () => {
        instance.end = { status: FINAL_STATUS[job.outcome], time: now() };
        options.onInstanceEnd(instance);
      });
      return instance;
    },
  };
}

type PastRun = Omit<JobInstance, 'id' | 'name' | 'end'>;

/** Oldest first, so instance ids rise with submit time as the platform's do. */
function pastRuns(now: Date, random: () => number): PastRun[] {
  const runs: PastRun[] = [];
  // The republish job (rule 3) has no past runs: it draws nothing from the shared seeded random,
  // so adding it left every area's seeded data as it was.
  for (const job of JOB_CATALOG.filter((candidate) => candidate.republish !== true)) {
    for (let index = 0; index < PAST_RUNS_PER_JOB; index += 1) {
      const daysBack = index * 2 + 1 + random();
      runs.push({
        job,
        submittedBy: job.type === 'MANUAL' ? 'api' : 'scheduler',
        apiStarted: false,
        submitTime: new Date(Math.floor((now.getTime() - daysBack * DAY_MS) / 1000) * 1000),
        durationMs: 60_000 + Math.floor(random() * 600_000),
        records: job.outcome === 'empty' ? 0 : 5 + Math.floor(random() * 60),
      });
    }
  }
  return runs.sort((a, b) => a.submitTime.getTime() - b.submitTime.getTime());
}

/** `Import MARC records - 11/06/2024 10:14`, the platform's naming. */
function instanceName(job: JobDefinition, at: Date): string {
  const iso = at.toISOString();
  return `${job.name} - ${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)} ${iso.slice(11, 16)}`;
}
