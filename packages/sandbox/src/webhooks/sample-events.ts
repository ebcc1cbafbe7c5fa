import type { EventKind } from './webhook-profile';

export interface WebhookEvent {
  readonly id: string;
  readonly action: string;
  readonly time: string;
  readonly [subject: string]: unknown;
}

export interface EventBase {
  readonly id: string;
  readonly time: string;
  readonly institution: { readonly value: string; readonly desc: string };
}

/** spec §6.2: job_end carries `job_instance` (the instance as GET returns it). */
export function jobEndEvent(base: EventBase, jobInstance: Record<string, unknown>): WebhookEvent {
  return {
    id: base.id,
    action: 'JOB_END',
    institution: base.institution,
    time: base.time,
    job_instance: jobInstance,
  };
}

/**
 * Events of the other kinds. Their payloads are not shown in the spec (§6.2); these are invented
 * in the platform family's style, with one subject object each.
 */
export function sampleEvent(
  kind: Exclude<EventKind, 'job_end'>,
  base: EventBase,
  random: () => number,
): WebhookEvent {
  const head = { id: base.id, institution: base.institution, time: base.time };
  const n = String(1000 + Math.floor(random() * 9000));
  switch (kind) {
    case 'loan':
      return {
        ...head,
        action: 'LOAN_CREATED',
        event: { value: 'LOAN_CREATED', desc: 'Loan created' },
        item_loan: {
          loan_id: `7${n}0000561`,
          user_id: `S10${n}`,
          item_barcode: `3900${n}`,
          mms_id: `99${n}0000561`,
          title: 'A history of rivers',
          library: { value: 'MAIN', desc: 'Main Library' },
          loan_status: 'ACTIVE',
          loan_date: base.time,
          due_date: new Date(Date.parse(base.time) + 28 * 86_400_000).toISOString(),
        },
      };
    case 'bib':
      return {
        ...head,
        action: 'BIB_UPDATED',
        event: { value: 'BIB_UPDATED', desc: 'BIB record updated' },
        bib: {
          mms_id: `99${n}0000561`,
          title: 'Essays on memory',
          author: 'Lindqvist, Erik',
          isbn: `978000000${n}`,
          suppress_from_publishing: 'false',
          last_modified_date: base.time,
        },
      };
    case 'user':
      return {
        ...head,
        action: 'USER',
        event: { value: 'USER_UPDATED', desc: 'User updated' },
        webhook_user: {
          method: 'UPDATE',
          cause: 'API',
          user: {
            primary_id: `S10${n}`,
            first_name: 'Amara',
            last_name: 'Okafor',
            user_group: { value: 'UGRAD', desc: 'Undergraduate' },
            status: { value: 'ACTIVE', desc: 'Active' },
          },
        },
      };
    case 'request':
      return {
        ...head,
        action: 'REQUEST',
        event: { value: 'REQUEST_CREATED', desc: 'Request created' },
        user_request: {
          request_id: `8${n}0000561`,
          user_primary_id: `S10${n}`,
          request_type: 'HOLD',
          request_status: 'NOT_STARTED',
          pickup_location: 'Main Library',
          mms_id: `99${n}0000561`,
          title: 'The politics of light',
          request_date: base.time.slice(0, 10),
        },
      };
  }
}
