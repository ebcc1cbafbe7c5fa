/**
 * Rows of the code tables other areas validate against (spec §3: InvoiceStatus, ReminderTypes …).
 * The conf-tables area serves them; a PUT there does not change what other areas accept.
 */
export interface CodeRowSeed {
  readonly code: string;
  readonly description: string;
}

export interface CodeTableSeed {
  readonly name: string;
  readonly description: string;
  readonly subSystem: string;
  readonly rows: readonly CodeRowSeed[];
  /** System tables: PUT answers 90123. */
  readonly customizable: boolean;
  /** Internal tables: PUT answers 90102. */
  readonly hidden: boolean;
}

const rows = (...pairs: readonly (readonly [string, string])[]): CodeRowSeed[] =>
  pairs.map(([code, description]) => ({ code, description }));

export const CODE_TABLES: readonly CodeTableSeed[] = [
  {
    name: 'InvoiceStatus',
    description: 'Invoice workflow statuses',
    subSystem: 'ACQ',
    customizable: true,
    hidden: false,
    rows: rows(
      ['InReview', 'In Review'],
      ['InApproval', 'In Approval'],
      ['Waiting_For_Payment', 'Waiting for Payment'],
      ['Ready_to_be_Paid', 'Ready to be Paid'],
      ['Rejected', 'Rejected'],
      ['Closed', 'Closed'],
    ),
  },
  {
    name: 'LicenseReviewStatuses',
    description: 'License review statuses',
    subSystem: 'ACQ',
    customizable: true,
    hidden: false,
    rows: rows(['INREVIEW', 'In Review'], ['ACCEPTED', 'Accepted'], ['REJECTED', 'Rejected']),
  },
  {
    name: 'ReminderTypes',
    description: 'Reminder types',
    subSystem: 'RESOURCE_MANAGEMENT',
    customizable: true,
    hidden: false,
    rows: rows(
      ['GENERAL', 'General'],
      ['CATALOGING', 'Cataloging'],
      ['ACQUISITION', 'Acquisition'],
      ['REVIEW', 'Review'],
    ),
  },
  {
    name: 'ReminderStatuses',
    description: 'Reminder statuses',
    subSystem: 'RESOURCE_MANAGEMENT',
    customizable: true,
    hidden: false,
    rows: rows(['NEW', 'New'], ['ACTIVE', 'Active'], ['DONE', 'Done']),
  },
  {
    name: 'IntegrationTypes',
    description: 'Integration profile types',
    subSystem: 'GENERAL',
    customizable: false,
    hidden: false,
    rows: rows(
      ['WEBHOOK', 'Webhooks'],
      ['SIS', 'Student Information System'],
      ['ACQUISITION', 'Acquisition (ERP)'],
      ['PUBLISHING', 'Publishing'],
      ['REMOTE_STORAGE', 'Remote Storage'],
      ['BURSAR', 'Bursar'],
    ),
  },
  {
    name: 'SetContentType',
    description: 'Set content types',
    subSystem: 'GENERAL',
    customizable: false,
    hidden: false,
    rows: rows(
      ['BIB_MMS', 'All titles'],
      ['ITEM', 'Physical items'],
      ['PORTFOLIO', 'Electronic portfolios'],
      ['IEP', 'Physical titles'],
      ['HOLDING', 'Holdings'],
      ['USER', 'Users'],
      ['VENDOR', 'Vendors'],
      ['PO_LINE', 'PO lines'],
    ),
  },
  {
    name: 'HPaTaskChain.type',
    description: 'Manual job categories',
    subSystem: 'GENERAL',
    customizable: false,
    hidden: false,
    rows: rows(['ITEMS', 'Items'], ['BIBS', 'Bibliographic records'], ['USERS', 'Users']),
  },
  {
    name: 'systemJobsGroups',
    description: 'Scheduled and other job categories',
    subSystem: 'GENERAL',
    customizable: false,
    hidden: false,
    rows: rows(
      ['IMPORT', 'Import'],
      ['EXPORT', 'Export'],
      ['PUBLISHING', 'Publishing'],
      ['CIRCULATION', 'Circulation'],
      ['REMOTE_STORAGE', 'Remote Storage'],
      ['ACQUISITION', 'Acquisition'],
      ['USERS', 'Users'],
    ),
  },
  {
    name: 'InternalRecordLocks',
    description: 'Internal record locks',
    subSystem: 'GENERAL',
    customizable: false,
    hidden: true,
    rows: rows(['LOCKED', 'Locked']),
  },
];

/** The row codes of a seeded table (other areas' enumerations). */
export function codesOf(tableName: string): string[] {
  const table = CODE_TABLES.find((candidate) => candidate.name === tableName);
  return table === undefined ? [] : table.rows.map((row) => row.code);
}
