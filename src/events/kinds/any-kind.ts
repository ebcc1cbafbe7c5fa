import type { RecordColumn } from './event-kind';

/**
 * What holds in an event of any kind, also of one this listener has no file for (the platform
 * may add kinds before we do).
 */
export const anyKind = {
  /** Keys that name a user wherever they appear: an event carrying one is a patron event. */
  personalKeys: ['user_id', 'user_primary_id', 'patron_id', 'requester_id'],
  /**
   * Keys whose value the history is searched by, read at any depth of what no kind's file
   * claims (a subject of an unknown kind, a key beside the subject).
   */
  identifierKeys: {
    barcode: 'barcodes',
    item_barcode: 'barcodes',
    mms_id: 'mmsIds',
    loan_id: 'loanIds',
    request_id: 'requestIds',
    job_instance_id: 'jobInstanceIds',
  },
} as const satisfies {
  personalKeys: readonly string[];
  identifierKeys: Readonly<Record<string, RecordColumn>>;
};
