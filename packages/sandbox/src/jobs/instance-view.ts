import { JOB_CATEGORIES, JOB_TYPES } from './job-catalog';
import type { JobDefinition } from './job-catalog';
import { alertsOf, countersOf, INSTANCE_STATUSES, stateAt } from './job-instance';
import type { JobInstance } from './job-instance';

const SUBMITTERS = { api: 'API', scheduler: 'Scheduler', sandbox: 'Sandbox admin' } as const;

function jobLink(baseUrl: string, jobId: string): string {
  return `${baseUrl}/svcws/v1/conf/jobs/${jobId}`;
}

export function instanceLink(baseUrl: string, instance: JobInstance): string {
  return `${jobLink(baseUrl, instance.job.id)}/instances/${instance.id}`;
}

/** The job in the platform's shape: code fields as `{value, desc}`, a `link`. */
export function jobView(job: JobDefinition, baseUrl: string): Record<string, unknown> {
  return { ...jobInfoView(job, baseUrl), profile_id: job.profileId, task_count: job.taskCount };
}

/** The instance's `job_info`: the job without its scheduling details. */
function jobInfoView(job: JobDefinition, baseUrl: string): Record<string, unknown> {
  return {
    id: job.id,
    name: job.name,
    description: job.description,
    type: { value: job.type, desc: JOB_TYPES[job.type] },
    category: { value: job.category, desc: JOB_CATEGORIES[job.category] },
    link: jobLink(baseUrl, job.id),
  };
}

/** The job instance as docs/platform-shapes.md shows it; also the webhook's `job_instance`. */
export function instanceView(
  instance: JobInstance,
  now: Date,
  baseUrl: string,
): Record<string, unknown> {
  const state = stateAt(instance, now);
  const link = instanceLink(baseUrl, instance);
  const statusDate = (state.endTime ?? now).toISOString().slice(0, 10);
  return {
    id: instance.id,
    name: instance.name,
    external_id: null,
    submitted_by: { value: instance.submittedBy, desc: SUBMITTERS[instance.submittedBy] },
    submit_time: instance.submitTime.toISOString(),
    start_time: state.startTime?.toISOString(),
    end_time: state.endTime?.toISOString(),
    progress: state.progress,
    status: { value: state.status, desc: INSTANCE_STATUSES[state.status] },
    status_date: `${statusDate}Z`,
    job_info: jobInfoView(instance.job, baseUrl),
    counter: countersOf(instance, state.progress).map((counter) => ({
      type: { value: counter.type, desc: counter.desc },
      value: String(counter.value),
    })),
    alert: alertsOf(state.status),
    action: state.endTime
      ? [{ type: { value: 'REPORT', desc: 'Report' }, link: `${link}/report` }]
      : undefined,
    link,
  };
}
