/**
 * The identifiers of each kind's subject (events/kinds/*: its root key), the fields a receiver of a
 * thin event (`send: { shape: ids }`) needs to fetch the rest through the API (spec §6.2 lists the
 * subject objects). A subject not listed keeps its `id` alone.
 */
export const SUBJECT_IDENTIFIERS: Readonly<Record<string, readonly string[]>> = {
  job_instance: ['job_instance.id', 'job_instance.job_info.id'],
  item_loan: [
    'item_loan.loan_id',
    'item_loan.user_id',
    'item_loan.item_id',
    'item_loan.item_barcode',
    'item_loan.mms_id',
  ],
  user_request: [
    'user_request.request_id',
    'user_request.user_primary_id',
    'user_request.mms_id',
    'user_request.item_id',
  ],
  bib: ['bib.mms_id'],
  item: ['item.bib_data.mms_id', 'item.holding_data.holding_id', 'item.item_data.pid'],
  webhook_user: ['webhook_user.user.primary_id'],
  notification_data: ['notification_data.user_id'],
};

/** The envelope of every event (spec §6.2): what `shape: ids` keeps besides the identifiers. */
export const ENVELOPE_PATHS = ['id', 'action', 'event', 'institution', 'time'] as const;
