/**
 * The sandbox's seeded jobs (spec §4.3; categories from docs/platform-shapes.md). Ids follow the
 * rule `^[MSO]\d{3,}$`: M manual, S scheduled, O other — anything else
 * is 402215 (bad format), a well-formed id that is not here is 402216 (invalid job id).
 */
export const JOB_ID_FORMAT = /^[MSO]\d{3,}$/;

/** spec §2 and §4.3: the job `type` values. */
export const JOB_TYPES = {
  MANUAL: 'Manual',
  SCHEDULED: 'Scheduled',
  OTHER: 'Other',
} as const;
export type JobType = keyof typeof JOB_TYPES;

export const JOB_CATEGORIES = {
  IMPORT: 'Import',
  USERS: 'Users',
  EXPORT: 'Export',
  PUBLISHING: 'Publishing',
  CIRCULATION: 'Circulation',
  REMOTE_STORAGE: 'Remote Storage',
  ACQUISITION: 'Acquisition',
} as const;
export type JobCategory = keyof typeof JOB_CATEGORIES;

/** spec §4.3 rule 3: the families a scheduled job may be submitted for. */
export const SUBMITTABLE_SCHEDULED_CATEGORIES: ReadonlySet<JobCategory> = new Set([
  'IMPORT',
  'USERS',
  'EXPORT',
  'PUBLISHING',
  'REMOTE_STORAGE',
  'ACQUISITION',
]);

/** What a run of the job reports: which counters, and how it ends. */
export type JobKind = 'import' | 'export' | 'users' | 'generic';
export type JobOutcome = 'success' | 'warnings' | 'failed' | 'empty';

export interface JobDefinition {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly type: JobType;
  readonly category: JobCategory;
  readonly kind: JobKind;
  readonly outcome: JobOutcome;
  readonly taskCount: number;
  readonly profileId?: string;
  /**
   * A student-information-system job. spec §4.3 allows instance events only for "jobs of category
   * and type USERS/SIS", yet SIS is no job `type` (MANUAL, SCHEDULED, OTHER): we read it as a
   * USERS job that is a SIS job by what it does. Not shown in the job's JSON.
   */
  readonly sis?: true;
  /** The PUBLISHING family's republish action: spec §4.3 rule 3 excludes it from the submit. */
  readonly republish?: true;
}

export const JOB_CATALOG: readonly JobDefinition[] = [
  {
    id: 'S7781',
    name: 'Import MARC records',
    description: 'Metadata import from the vendor FTP',
    type: 'SCHEDULED',
    category: 'IMPORT',
    kind: 'import',
    outcome: 'success',
    taskCount: 1,
    profileId: '6127400000561',
  },
  {
    id: 'S7782',
    name: 'Import e-book records',
    description: 'Metadata import of vendor e-book records; some are rejected',
    type: 'SCHEDULED',
    category: 'IMPORT',
    kind: 'import',
    outcome: 'warnings',
    taskCount: 1,
    profileId: '6127500000561',
  },
  {
    id: 'S7783',
    name: 'Import approval-plan records',
    description: 'Metadata import whose vendor file is always empty',
    type: 'SCHEDULED',
    category: 'IMPORT',
    kind: 'import',
    outcome: 'empty',
    taskCount: 1,
    profileId: '6127600000561',
  },
  {
    id: 'S8801',
    name: 'SIS synchronize users',
    description: 'Student information system synchronization',
    type: 'SCHEDULED',
    category: 'USERS',
    sis: true,
    kind: 'users',
    outcome: 'success',
    taskCount: 1,
    profileId: '6130100000561',
  },
  {
    id: 'S8120',
    name: 'Export bibliographic records',
    description: 'Publishing of bibliographic records to the union catalogue',
    type: 'SCHEDULED',
    category: 'EXPORT',
    kind: 'export',
    outcome: 'success',
    taskCount: 1,
    profileId: '6140200000561',
  },
  {
    id: 'S8130',
    name: 'Publish to discovery',
    description: 'General publishing to the discovery system',
    type: 'SCHEDULED',
    category: 'PUBLISHING',
    kind: 'export',
    outcome: 'success',
    taskCount: 1,
  },
  {
    id: 'S8131',
    name: 'Republish to discovery',
    description: 'Republishes every record to the discovery system; not submittable (rule 3)',
    type: 'SCHEDULED',
    category: 'PUBLISHING',
    republish: true,
    kind: 'export',
    outcome: 'success',
    taskCount: 1,
  },
  {
    id: 'S8210',
    name: 'Remote storage - send requests',
    description: 'Sends requests to the remote storage facility',
    type: 'SCHEDULED',
    category: 'REMOTE_STORAGE',
    kind: 'generic',
    outcome: 'success',
    taskCount: 1,
  },
  {
    id: 'S8310',
    name: 'Export invoices to ERP',
    description: 'Invoice export to the ERP system; the ERP refuses the file',
    type: 'SCHEDULED',
    category: 'ACQUISITION',
    kind: 'export',
    outcome: 'failed',
    taskCount: 1,
  },
  {
    id: 'S9100',
    name: 'Send overdue and lost loan notices',
    description: 'Circulation notices; not a family that may be submitted',
    type: 'SCHEDULED',
    category: 'CIRCULATION',
    kind: 'generic',
    outcome: 'success',
    taskCount: 1,
  },
  {
    id: 'M2601',
    name: 'Change physical items information',
    description: 'Manual job on an itemized set of items',
    type: 'MANUAL',
    category: 'CIRCULATION',
    kind: 'generic',
    outcome: 'success',
    taskCount: 1,
  },
  {
    id: 'M2702',
    name: 'Withdraw items and delete holdings',
    description: 'Manual job of two tasks',
    type: 'MANUAL',
    category: 'CIRCULATION',
    kind: 'generic',
    outcome: 'success',
    taskCount: 2,
  },
  {
    id: 'O3001',
    name: 'Fulfillment network synchronization',
    description: 'Run by the system only',
    type: 'OTHER',
    category: 'CIRCULATION',
    kind: 'generic',
    outcome: 'success',
    taskCount: 1,
  },
];
