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
 * in the platform family's style, with one subject object each. As the platform sends them, the
 * action is the kind (LOAN, BIB, USER, REQUEST) and the change is the `event` code.
 */
export function sampleEvent(
  kind: Exclude<EventKind, 'job_end'>,
  base: EventBase,
  random: () => number,
): WebhookEvent {
  const head = { id: base.id, institution: base.institution, time: base.time };
  const n = String(1000 + Math.floor(random() * 9000));
  return { ...head, ...SAMPLE_BODIES[kind](n, base.time) };
}

/** A kind's action, event and subject, given a random four-digit number and the event time. */
type SampleBody = (n: string, time: string) => { action: string; [field: string]: unknown };

const SAMPLE_BODIES: Readonly<Record<Exclude<EventKind, 'job_end'>, SampleBody>> = {
  loan: (n, time) => ({
    action: 'LOAN',
    event: { value: 'LOAN_CREATED', desc: 'Loan created' },
    item_loan: {
      loan_id: `7${n}0000561`,
      user_id: `S10${n}`,
      item_barcode: `3900${n}`,
      mms_id: `99${n}0000561`,
      title: 'A history of rivers',
      library: { value: 'MAIN', desc: 'Main Library' },
      loan_status: 'ACTIVE',
      loan_date: time,
      due_date: new Date(Date.parse(time) + 28 * 86_400_000).toISOString(),
    },
  }),
  bib: (n, time) => ({
    action: 'BIB',
    event: { value: 'BIB_UPDATED', desc: 'BIB record updated' },
    bib: {
      mms_id: `99${n}0000561`,
      title: 'Essays on memory',
      author: 'Lindqvist, Erik',
      isbn: `978000000${n}`,
      suppress_from_publishing: 'false',
      last_modified_date: time,
    },
  }),
  user: (n) => ({
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
  }),
  request: (n, time) => ({
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
      request_date: time.slice(0, 10),
    },
  }),
};
