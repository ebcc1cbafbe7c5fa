import { z } from 'zod';
import { defineArea } from '../endpoint';
import type { Refusal } from '../endpoint';
import { JobInstance } from '../job-instance';
import { openHoursQuery } from '../open-hours-query';
import { isoDate, listParams, noQuery, oneOf, requiredOp, text } from '../query-params';
import { searchQuery } from '../search-query';
import { generalError, jobSubmitCodes } from './error-codes';

/**
 * spec §4.3 GET /conf/jobs: profile_id is "only for scheduled jobs". That says what it filters, not
 * that other types refuse it: with type MANUAL or OTHER it is sent as given (what the platform does
 * with it there: not shown), since the spec lists no code for it.
 */
const JobListQuery = z.strictObject({
  ...listParams,
  category: text,
  type: oneOf(['MANUAL', 'SCHEDULED', 'OTHER']),
  profile_id: text,
});

/**
 * spec §4.3 GET /conf/jobs/{job_id}/instances. The schema marks the three filters required, the
 * descriptions optional; we follow the descriptions.
 */
const JobInstanceListQuery = z
  .strictObject({
    ...listParams,
    submit_date_from: isoDate,
    submit_date_to: isoDate,
    status: text,
  })
  .superRefine((query, ctx) => {
    const { submit_date_from: from, submit_date_to: to } = query;
    // Same-format YYYY-MM-DD strings order like the dates they name.
    if (from !== undefined && to !== undefined && to < from) {
      ctx.addIssue({
        code: 'custom',
        path: ['submit_date_to'],
        message: 'must not be before submit_date_from',
      });
    }
  });

const MINUTE = 60_000;

const threshold: Refusal = {
  explanation:
    'The job was not started: the platform allows at most 3 API-started jobs running at once, or 5 runs of the same job per hour. Try again later.',
  retryable: true,
  retryAfterMs: 10 * MINUTE,
};

/**
 * What the job-submit refusals mean for a person, and whether trying again can help.
 * - Threshold (402222, 402223; §4.3 rules 1-2, §8): clears with time, either when one of the
 *   3 running API jobs ends or when the hour of 5 runs rolls on. Retryable, after 10 minutes: the
 *   spec does not say which of the two limits was hit, and a run started within the hour clears
 *   one sixth of the way through it at the latest.
 * - Overlap (60347): clears when the running instance ends. Retryable after 5 minutes, a guess at
 *   a short job; the caller may know better (it can watch the instance).
 * - Multi-task (402231; §4.3 rule 4): a property of the job. Never retryable.
 */
const jobSubmitRefusals: Readonly<Record<string, Refusal>> = {
  '402222': threshold,
  '402223': threshold,
  '60347': {
    explanation:
      'The job was not started: another run of the same job is still in progress. Try again when it has finished.',
    retryable: true,
    retryAfterMs: 5 * MINUTE,
  },
  '402231': {
    explanation:
      'The job was not started: it is made of more than one task, and the platform does not start such jobs through the API. Run it from the platform instead.',
    retryable: false,
  },
};

/** The codes every operation on one job instance shares (spec §4.3). */
const jobInstanceCodes = {
  '402215': 'bad job id format',
  '402216': 'invalid job id',
  '402218': 'invalid instance id',
} as const;

/** The codes license-term create and update share (spec §4.7). */
const licenseTermSaveCodes = {
  '500021': 'mandatory field missing',
  '60198': 'code not unique',
  '60195': 'term codes not valid',
  '60190': 'licensor not valid',
} as const;

const profileSearch = searchQuery(['created_by', 'name']);

/** Configuration area, spec §4.1–§4.7. */
export const confEndpoints = defineArea('conf', [
  // §4.1 general configuration, tables
  {
    route: 'GET /conf/code-tables',
    operation: 'listCodeTables',
    query: noQuery,
    errors: { ...generalError, '40166411': 'scope not found' },
  },
  {
    route: 'GET /conf/code-tables/{codeTableName}',
    operation: 'getCodeTable',
    query: z.strictObject({ lang: text, scope: text }),
    errors: { ...generalError, '40166411': 'parameter value invalid' },
  },
  {
    route: 'PUT /conf/code-tables/{codeTableName}',
    operation: 'updateCodeTable',
    query: z.strictObject({ lang: text }),
    body: 'required',
    errors: {
      ...generalError,
      '90100': 'name empty',
      '90101': 'table does not exist',
      '90102': 'table hidden',
      '90121': 'scope not legal',
      '90122': 'multiple default codes',
      '90123': 'table not customizable',
    },
  },
  {
    route: 'GET /conf/mapping-tables',
    operation: 'listMappingTables',
    query: noQuery,
    errors: { ...generalError, '40166411': 'scope not found' },
  },
  {
    route: 'GET /conf/mapping-tables/{mappingTableName}',
    operation: 'getMappingTable',
    query: z.strictObject({ scope: text }),
    errors: { ...generalError, '40166411': 'scope not found' },
  },
  {
    route: 'PUT /conf/mapping-tables/{mappingTableName}',
    operation: 'updateMappingTable',
    query: noQuery,
    body: 'required',
    errors: {
      ...generalError,
      '90126': 'name empty',
      '90101': 'table does not exist',
      '90102': 'table hidden',
      '90127': 'scope not legal',
      '90125': 'table not customizable',
    },
  },
  {
    route: 'GET /conf/general',
    operation: 'getGeneralConfiguration',
    query: z.strictObject({ expand: oneOf(['ingest_form']) }),
    errors: generalError,
  },
  // The schema marks scope required, the description optional (default: the institution); we
  // follow the description.
  {
    route: 'GET /conf/open-hours',
    operation: 'getOpenHours',
    query: z.strictObject({ scope: text }),
    errors: {},
  },
  {
    route: 'GET /conf/departments',
    operation: 'listDepartments',
    // spec §4.1: view "default FULL; brief …", case as written.
    query: z.strictObject({ type: oneOf(['DIGI', 'ALL']), view: oneOf(['FULL', 'brief']) }),
    errors: generalError,
  },

  // §4.2 organization units
  {
    route: 'GET /conf/libraries',
    operation: 'listLibraries',
    query: noQuery,
    errors: generalError,
  },
  {
    route: 'GET /conf/libraries/{libraryCode}',
    operation: 'getLibrary',
    query: noQuery,
    errors: generalError,
  },
  {
    route: 'GET /conf/libraries/{libraryCode}/circ-desks/',
    operation: 'listCircDesks',
    query: z.strictObject(listParams),
    errors: generalError,
    list: true,
  },
  {
    route: 'GET /conf/libraries/{libraryCode}/circ-desks/{circDeskCode}',
    operation: 'getCircDesk',
    query: noQuery,
    errors: { ...generalError, '401664': 'parameter missing or invalid' },
  },
  {
    route: 'GET /conf/libraries/{libraryCode}/locations',
    operation: 'listLocations',
    query: noQuery,
    errors: generalError,
  },
  {
    route: 'GET /conf/libraries/{libraryCode}/locations/{locationCode}',
    operation: 'getLocation',
    query: noQuery,
    errors: generalError,
  },
  {
    route: 'PUT /conf/libraries/{libraryCode}/locations/{locationCode}',
    operation: 'updateLocation',
    query: noQuery,
    body: 'required',
    errors: {
      '401664': 'parameter invalid',
      '60297': 'location type invalid',
      '60298': 'remote storage code invalid',
      '60299': 'fulfillment unit invalid',
      '60300': 'accession placement invalid',
      '60301': 'call number type invalid',
      '60302': 'update failed',
    },
  },
  {
    route: 'GET /conf/libraries/{libraryCode}/open-hours',
    operation: 'getLibraryOpenHours',
    // The range rules depend on today: the row reads the real clock, tests build their own.
    query: openHoursQuery(() => new Date()),
    errors: generalError,
  },

  // §4.3 jobs
  {
    route: 'GET /conf/jobs',
    operation: 'listJobs',
    query: JobListQuery,
    // The spec lists 40166410 twice, for an invalid category and for an invalid type.
    errors: { '40166410': 'invalid category or invalid type', '402219': 'jobs list failed' },
    list: true,
  },
  {
    route: 'GET /conf/jobs/{job_id}',
    operation: 'getJob',
    query: noQuery,
    errors: {
      '402215': 'bad job id format',
      '402216': 'invalid job id',
      '402249': 'invalid scheduled job category',
    },
  },
  {
    route: 'POST /conf/jobs/{job_id}',
    operation: 'runJob',
    // spec §3 and §4.3: op is required, run for manual and scheduled jobs.
    query: z.strictObject({ op: requiredOp(['run']) }),
    body: 'required',
    errors: jobSubmitCodes,
    refusals: jobSubmitRefusals,
  },
  {
    route: 'GET /conf/jobs/{job_id}/instances',
    operation: 'listJobInstances',
    query: JobInstanceListQuery,
    errors: {
      '402215': 'bad job id format',
      '402216': 'invalid job id',
      '402217': 'invalid date format',
      '40166410': 'invalid status',
    },
    list: true,
  },
  {
    route: 'GET /conf/jobs/{job_id}/instances/{instance_id}',
    operation: 'getJobInstance',
    query: noQuery,
    errors: jobInstanceCodes,
    // The worker reads the counters and the job it belongs to (docs/platform-shapes.md).
    response: JobInstance,
  },
  {
    route: 'GET /conf/jobs/{job_id}/instances/{instance_id}/download',
    operation: 'downloadJobInstance',
    query: z.strictObject({ download_format: oneOf(['XML', 'BINARY']), line_type: text }),
    errors: jobInstanceCodes,
    download: true,
  },
  {
    route: 'GET /conf/jobs/{job_id}/instances/{instance_id}/events',
    operation: 'listJobInstanceEvents',
    query: z.strictObject(listParams),
    errors: {
      ...jobInstanceCodes,
      '60333': 'error retrieving events',
      '60332': 'only USERS/SIS supported',
    },
    list: true,
  },

  // §4.4 profiles
  {
    route: 'GET /conf/deposit-profiles',
    operation: 'listDepositProfiles',
    query: z.strictObject({ ...listParams, user_group: text }),
    errors: {},
    list: true,
  },
  {
    route: 'GET /conf/deposit-profiles/{deposit_profile_id}',
    operation: 'getDepositProfile',
    query: noQuery,
    errors: {},
  },
  {
    route: 'GET /conf/integration-profiles',
    operation: 'listIntegrationProfiles',
    query: z.strictObject({ ...listParams, type: text, q: profileSearch }),
    errors: { '40166410': 'parameter value invalid', '40166404': 'invalid type' },
    list: true,
  },
  {
    route: 'GET /conf/integration-profiles/{id}',
    operation: 'getIntegrationProfile',
    query: noQuery,
    errors: { '60304': 'invalid profile id' },
  },
  {
    route: 'GET /conf/md-import-profiles',
    operation: 'listImportProfiles',
    query: z.strictObject({ type: text, ie_type: text }),
    errors: { ...generalError, '402123': 'invalid parameter value' },
  },
  {
    route: 'GET /conf/md-import-profiles/{profile_id}',
    operation: 'getImportProfile',
    query: noQuery,
    errors: { '401871': 'profile id not found' },
  },
  // Deprecated in favour of POST /conf/jobs/{job_id} (spec §9 rule 3); kept for FTP, OAI, Digital.
  {
    route: 'POST /conf/md-import-profiles/{profile_id}',
    operation: 'runImportProfile',
    query: z.strictObject({ op: requiredOp(['run']) }),
    errors: { '401871': 'profile id not found' },
  },

  // §4.5 letters, printers, reminders
  {
    route: 'GET /conf/letters',
    operation: 'listLetters',
    query: z.strictObject({ type: oneOf(['LETTER', 'COMPONENT']) }),
    errors: { ...generalError, '60344': 'problem retrieving letter data' },
  },
  {
    route: 'GET /conf/letters/{letterCode}',
    operation: 'getLetter',
    query: noQuery,
    errors: {
      ...generalError,
      '40166411': 'letter code not valid',
      '60344': 'problem retrieving letter data',
    },
  },
  {
    route: 'PUT /conf/letters/{letterCode}',
    operation: 'updateLetter',
    query: noQuery,
    body: 'required',
    // spec §1 rule 2, §7 rule 5: the letter update accepts XML only (JSON → 60105).
    bodyFormats: ['xml'],
    errors: {
      '60105': 'JSON not supported',
      ...generalError,
      '40166411': 'code or other parameter not valid',
      '60344': 'problem retrieving letter data',
      '60343': 'update failed',
    },
  },
  {
    route: 'GET /conf/printers',
    operation: 'listPrinters',
    query: z.strictObject({
      ...listParams,
      library: text,
      printout_queue: text,
      name: text,
      code: text,
    }),
    errors: { '402469': 'library code not valid', '40166410': 'invalid parameter' },
    list: true,
  },
  {
    route: 'GET /conf/printers/{printer_id}',
    operation: 'getPrinter',
    query: noQuery,
    errors: { '402899': 'invalid printer id' },
  },
  {
    route: 'GET /conf/reminders',
    operation: 'listReminders',
    query: z.strictObject({
      ...listParams,
      type: text,
      status: text,
      from: isoDate,
      to: isoDate,
      order_by: oneOf(['type', 'status', 'reminder_date']),
      direction: oneOf(['asc', 'desc']),
      entity_id: text,
      // spec §4.5: "only BIB_MMS valid".
      entity_type: oneOf(['BIB_MMS']),
    }),
    errors: { '40166410': 'invalid parameter value' },
    list: true,
  },
  {
    route: 'POST /conf/reminders',
    operation: 'createReminder',
    query: noQuery,
    body: 'required',
    errors: {
      '40166410': 'invalid parameter value',
      '60178': 'type not valid',
      '60179': 'status not valid',
      '60180': 'not created',
      '60182': 'entity id not valid',
      '60183': 'entity type not valid',
      '60184': 'entity id required',
      '60185': 'date required',
    },
  },
  {
    route: 'GET /conf/reminders/{reminder_id}',
    operation: 'getReminder',
    query: noQuery,
    errors: { '60177': 'id not valid' },
  },
  {
    route: 'PUT /conf/reminders/{reminder_id}',
    operation: 'updateReminder',
    query: noQuery,
    body: 'required',
    errors: {
      '40166410': 'invalid parameter value',
      '60177': 'id not valid',
      '60178': 'type not valid',
      '60179': 'status not valid',
      '60181': 'not updated',
    },
  },
  {
    route: 'DELETE /conf/reminders/{reminder_id}',
    operation: 'deleteReminder',
    query: noQuery,
    errors: { '60177': 'id not valid' },
  },

  // §4.6 sets
  {
    route: 'GET /conf/sets',
    operation: 'listSets',
    query: z.strictObject({
      ...listParams,
      content_type: text,
      set_type: oneOf(['ITEMIZED', 'LOGICAL']),
      q: profileSearch,
      set_origin: oneOf(['UI', 'UI_CZ']),
    }),
    errors: {
      '40166410': 'invalid parameter value',
      '60106': 'invalid query format',
      '60107': 'invalid set id',
    },
    list: true,
  },
  // The spec writes "and body: a set" rather than "body required"; a create without its set
  // cannot succeed, so the body is required here.
  {
    route: 'POST /conf/sets',
    operation: 'createSet',
    query: z.strictObject({ population: text }),
    body: 'required',
    errors: {},
  },

  // §4.7 license terms
  {
    route: 'GET /conf/license-terms',
    operation: 'listLicenseTerms',
    query: noQuery,
    errors: { '403401': 'retrieval failed' },
  },
  {
    route: 'POST /conf/license-terms',
    operation: 'createLicenseTerm',
    query: noQuery,
    body: 'required',
    errors: { ...licenseTermSaveCodes, '60196': 'not created' },
  },
  {
    route: 'GET /conf/license-terms/{license_term_code}',
    operation: 'getLicenseTerm',
    query: noQuery,
    errors: { '403400': 'code not found', '403401': 'retrieval failed' },
  },
  {
    route: 'PUT /conf/license-terms/{license_term_code}',
    operation: 'updateLicenseTerm',
    query: noQuery,
    body: 'required',
    errors: { '403400': 'code not found', ...licenseTermSaveCodes, '60202': 'not updated' },
  },
  {
    route: 'DELETE /conf/license-terms/{license_term_code}',
    operation: 'deleteLicenseTerm',
    query: noQuery,
    errors: { '403400': 'code not found', '60200': 'could not be deleted' },
  },
]);
