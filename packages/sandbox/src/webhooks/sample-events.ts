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
 * action is the kind (LOAN, BIB, USER, REQUEST, ITEM, NOTIFICATION) and the change is the `event`
 * code; a notification's subject is `notification_data`, as in real payloads.
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
  item: (n, time) => ({
    action: 'ITEM',
    event: { value: 'ITEM_UPDATED', desc: 'Item updated' },
    item: {
      bib_data: { mms_id: `99${n}0000561`, title: 'A history of rivers', author: 'Okafor, Amara' },
      holding_data: { holding_id: `22${n}0000561`, call_number: 'GB1201 .O43 2019' },
      item_data: {
        pid: `23${n}0000561`,
        barcode: `3900${n}`,
        modification_date: `${time.slice(0, 10)}Z`,
        base_status: { value: '1', desc: 'Item in place' },
        library: { value: 'MAIN', desc: 'Main Library' },
        location: { value: 'STACKS', desc: 'Main stacks' },
        requested: false,
      },
    },
  }),
  notification: (n, time) => ({
    action: 'NOTIFICATION',
    event: { value: 'NOTIFICATION', desc: 'Notification' },
    notification_data: {
      notification_type: 'FulfillmentLetter',
      letter_code: 'LoanStatusNoticeLetter',
      channel: 'EMAIL',
      user_id: `S10${n}`,
      item: [
        { barcode: `3900${n}`, title: 'A history of rivers', due_date: time },
        { barcode: `3901${n}`, title: 'Essays on memory', due_date: time },
      ],
      message: 'Your loans are due soon.',
    },
  }),
};
