import { z } from 'zod';
import { INVALID_PARAMETER_VALUE } from '../list-query';
import { badRequest } from '../sandbox-error';
import { INSTANCE_STATUSES, stateAt } from './job-instance';
import type { InstanceStatus, JobInstance } from './job-instance';

const IsoDate = z.iso.date();
const Status = z.enum(Object.keys(INSTANCE_STATUSES) as [InstanceStatus, ...InstanceStatus[]]);

/**
 * spec §4.3 instance list: submit_date_from / submit_date_to (YYYY-MM-DD, `to` inclusive,
 * compared with the UTC date of the submit time) → 402217 when malformed; status → 40166410 when
 * not an instance status.
 */
export function instanceFilter(
  query: Record<string, unknown>,
  now: Date,
): (instance: JobInstance) => boolean {
  const from = dateParameter(query.submit_date_from, 'submit_date_from');
  const to = dateParameter(query.submit_date_to, 'submit_date_to');
  let status: InstanceStatus | undefined;
  if (query.status !== undefined && query.status !== '') {
    const parsed = Status.safeParse(query.status);
    if (!parsed.success) {
      throw badRequest(INVALID_PARAMETER_VALUE, `Invalid status: ${String(query.status)}`);
    }
    status = parsed.data;
  }
  return (instance) => {
    const day = instance.submitTime.toISOString().slice(0, 10);
    if (from !== undefined && day < from) return false;
    if (to !== undefined && day > to) return false;
    return status === undefined || stateAt(instance, now).status === status;
  };
}

function dateParameter(raw: unknown, name: string): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const parsed = IsoDate.safeParse(raw);
  if (!parsed.success) throw badRequest('402217', `Invalid date format: ${name} (YYYY-MM-DD)`);
  return parsed.data;
}
