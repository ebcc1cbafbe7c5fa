/** What every sample is built from: a fresh id, the current time, the derived numbers. */
export interface SampleSeed {
  readonly id: string;
  readonly time: string;
  /** Eight digits of the id: record ids that differ from one sample to the next. */
  readonly n: string;
}

type Body = Record<string, unknown>;

const BASE = 'https://svc.example.org/svcws/v1';
const INSTITUTION = { value: '01SVC_INST', desc: 'Test institution' };
const MAIN = { value: 'MAIN', desc: 'Main Library' };
const DESK = { value: 'DEFAULT_CIRC_DESK', desc: 'Main desk' };

/**
 * The platform's events, one per kind, in the shapes of real payloads (test/fixtures/events/*.json,
 * docs/platform-shapes.md): the upper-case kind as `action` (the listener lower-cases it, so a
 * route's `action: [loan]` takes the loan), the change as the `event` code, the subject under its
 * kind's key (`item_loan`, `user_request`, `bib`, `item`, `webhook_user`, `notification_data`).
 */
export const sampleEventBodies = {
  /** spec §6.2 guarantees no more than the instance's id and name. */
  job_end_minimal: ({ id, time, n }: SampleSeed): Body => ({
    id,
    action: 'JOB_END',
    time,
    job_instance: { id: `58710435${n}`, name: 'Test job' },
  }),
  job_end: jobEnd,
  loan: ({ id, time, n }: SampleSeed): Body => ({
    ...head(id, time, 'LOAN', 'LOAN_CREATED', 'Loan created'),
    item_loan: {
      loan_id: `234001${n}`,
      circ_desk: DESK,
      library: MAIN,
      user_id: 'S1004217',
      item_barcode: '39000123456',
      due_date: new Date(Date.parse(time) + 28 * 86_400_000).toISOString(),
      loan_status: 'ACTIVE',
      loan_date: time,
      process_status: 'NORMAL',
      mms_id: '991234560000561',
      holding_id: '221234560000561',
      item_id: '231234560000561',
      title: 'A history of rivers',
      author: 'Okafor, Amara',
      location_code: { value: 'STACKS', name: 'Main stacks' },
      item_policy: { value: '01', description: 'Regular loan' },
      renewable: true,
      link: `${BASE}/users/S1004217/loans/234001${n}`,
    },
  }),
  request: ({ id, time, n }: SampleSeed): Body => ({
    ...head(id, time, 'REQUEST', 'REQUEST_CREATED', 'Request created'),
    user_request: {
      user_primary_id: 'S1004217',
      request_id: `812345${n}`,
      request_type: 'HOLD',
      request_sub_type: { value: 'PATRON_PHYSICAL', desc: 'Patron physical item request' },
      title: 'The politics of light',
      author: 'Lindqvist, Erik',
      mms_id: '991234570000561',
      item_id: '231234570000561',
      pickup_location: 'Main Library',
      pickup_location_type: 'LIBRARY',
      pickup_location_library: 'MAIN',
      material_type: { value: 'BOOK', desc: 'Book' },
      request_status: 'NOT_STARTED',
      place_in_queue: 1,
      request_date: `${time.slice(0, 10)}Z`,
      request_time: time,
      task_name: 'Pickup From Shelf',
    },
  }),
  bib,
  item,
  user: ({ id, time }: SampleSeed): Body => ({
    ...head(id, time, 'USER', 'USER_UPDATED', 'User updated'),
    webhook_user: {
      method: 'UPDATE',
      cause: 'API',
      user: {
        record_type: { value: 'PUBLIC', desc: 'Public' },
        primary_id: 'S1004217',
        first_name: 'Amara',
        last_name: 'Okafor',
        user_group: { value: 'UGRAD', desc: 'Undergraduate' },
        expiry_date: '2027-06-30Z',
        status: { value: 'ACTIVE', desc: 'Active' },
        contact_info: {
          email: [
            {
              preferred: true,
              segment_type: 'Internal',
              email_address: 'amara@example.org',
              email_type: [{ value: 'personal', desc: 'Personal' }],
            },
          ],
        },
      },
    },
  }),
  notification: ({ id, time }: SampleSeed): Body => ({
    ...head(id, time, 'NOTIFICATION', 'NOTIFICATION', 'Notification'),
    notification_data: {
      notification_type: 'FulfillmentLetter',
      user_id: 'S1004217',
      letter_code: 'LoanStatusNoticeLetter',
      channel: 'EMAIL',
      recipients: ['amara@example.org', 'circulation@example.org'],
      item: [
        { barcode: '39000123456', title: 'A history of rivers', due_date: time },
        { barcode: '39000123457', title: 'Essays on memory', due_date: time },
      ],
      message: 'Your loans are due soon.',
    },
  }),
} as const;

function head(id: string, time: string, action: string, event: string, desc: string): Body {
  return { id, action, institution: INSTITUTION, time, event: { value: event, desc } };
}

function jobEnd({ id, time, n }: SampleSeed): Body {
  const instanceId = `58710435${n}`;
  return {
    id,
    action: 'JOB_END',
    institution: INSTITUTION,
    time,
    job_instance: {
      id: instanceId,
      name: 'Import MARC records - test event',
      submitted_by: { value: 'api', desc: 'API' },
      end_time: time,
      progress: 100,
      status: { value: 'COMPLETED_SUCCESS', desc: 'Completed Successfully' },
      status_date: `${time.slice(0, 10)}Z`,
      job_info: {
        id: 'S7781',
        name: 'Import MARC records',
        type: { value: 'SCHEDULED', desc: 'Scheduled' },
        category: { value: 'IMPORT', desc: 'Import' },
        link: `${BASE}/conf/jobs/S7781`,
      },
      counter: [
        { type: { value: 'TOTAL_RECORDS_IMPORTED', desc: 'Total records imported' }, value: '3' },
      ],
      alert: [{ value: 'alert_general_success', desc: 'The job completed successfully.' }],
      link: `${BASE}/conf/jobs/S7781/instances/${instanceId}`,
    },
  };
}

function bib({ id, time, n }: SampleSeed): Body {
  const mmsId = `991234${n}`;
  const marc =
    '<?xml version="1.0" encoding="UTF-16"?><record><leader>01234cam a2200289 i 4500</leader>' +
    `<controlfield tag="001">${mmsId}</controlfield>` +
    '<datafield ind1="1" ind2="0" tag="245"><subfield code="a">Essays on memory</subfield></datafield></record>';
  return {
    ...head(id, time, 'BIB', 'BIB_UPDATED', 'BIB record updated'),
    bib: {
      mms_id: mmsId,
      record_format: 'marc21',
      title: 'Essays on memory',
      author: 'Lindqvist, Erik',
      isbn: '9780000001234',
      network_number: ['(OCoLC)123456789'],
      holdings: { link: `${BASE}/bibs/${mmsId}/holdings` },
      last_modified_date: `${time.slice(0, 10)}Z`,
      suppress_from_publishing: 'false',
      cataloging_level: { value: '00', desc: 'Default Level' },
      anies: [marc],
      link: `${BASE}/bibs/${mmsId}`,
    },
  };
}

function item({ id, time, n }: SampleSeed): Body {
  const bibLink = `${BASE}/bibs/991234560000561`;
  const holdingLink = `${bibLink}/holdings/221234560000561`;
  return {
    ...head(id, time, 'ITEM', 'ITEM_UPDATED', 'Item updated'),
    item: {
      bib_data: {
        mms_id: '991234560000561',
        title: 'A history of rivers',
        author: 'Okafor, Amara',
        network_number: ['(OCoLC)987654321'],
        link: bibLink,
      },
      holding_data: {
        holding_id: '221234560000561',
        call_number: 'GB1201 .O43 2019',
        in_temp_location: false,
        link: holdingLink,
      },
      item_data: {
        pid: `231234${n}`,
        barcode: '39000123456',
        modification_date: `${time.slice(0, 10)}Z`,
        base_status: { value: '1', desc: 'Item in place' },
        physical_material_type: { value: 'BOOK', desc: 'Book' },
        policy: { value: '01', desc: 'Regular loan' },
        library: MAIN,
        location: { value: 'STACKS', desc: 'Main stacks' },
        requested: false,
      },
      link: `${holdingLink}/items/231234${n}`,
    },
  };
}
