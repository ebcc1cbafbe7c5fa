import { z } from 'zod';
import { defineEndpoint } from '../endpoint';
import { openHoursQuery } from '../open-hours-query';
import { isoDate, listParams, noQuery, oneOf, requiredOp, text } from '../query-params';
import { searchQuery } from '../search-query';
import { generalError, jobSubmitCodes } from './error-codes';

/** spec §4.3 GET /conf/jobs: profile_id is "only for scheduled jobs". */
const JobListQuery = z
  .strictObject({
    ...listParams,
    category: text,
    type: oneOf(['MANUAL', 'SCHEDULED', 'OTHER']),
    profile_id: text,
  })
  .superRefine((query, ctx) => {
    // An absent type lists all jobs, scheduled ones among them, so profile_id may filter those.
    if (query.profile_id !== undefined && query.type !== undefined && query.type !== 'SCHEDULED') {
      ctx.addIssue({
        code: 'custom',
        path: ['profile_id'],
        message: 'applies to scheduled jobs only: leave type out or set it to SCHEDULED',
      });
    }
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
export const confEndpoints = {
  // §4.1 general configuration, tables
  'GET /conf/code-tables': defineEndpoint('GET /conf/code-tables', {
    operation: 'listCodeTables',
    area: 'conf',
    query: noQuery,
    errors: { ...generalError, '40166411': 'scope not found' },
  }),
  'GET /conf/code-tables/{codeTableName}': defineEndpoint('GET /conf/code-tables/{codeTableName}', {
    operation: 'getCodeTable',
    area: 'conf',
    query: z.strictObject({ lang: text, scope: text }),
    errors: { ...generalError, '40166411': 'parameter value invalid' },
  }),
  'PUT /conf/code-tables/{codeTableName}': defineEndpoint('PUT /conf/code-tables/{codeTableName}', {
    operation: 'updateCodeTable',
    area: 'conf',
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
  }),
  'GET /conf/mapping-tables': defineEndpoint('GET /conf/mapping-tables', {
    operation: 'listMappingTables',
    area: 'conf',
    query: noQuery,
    errors: { ...generalError, '40166411': 'scope not found' },
  }),
  'GET /conf/mapping-tables/{mappingTableName}': defineEndpoint(
    'GET /conf/mapping-tables/{mappingTableName}',
    {
      operation: 'getMappingTable',
      area: 'conf',
      query: z.strictObject({ scope: text }),
      errors: { ...generalError, '40166411': 'scope not found' },
    },
  ),
  'PUT /conf/mapping-tables/{mappingTableName}': defineEndpoint(
    'PUT /conf/mapping-tables/{mappingTableName}',
    {
      operation: 'updateMappingTable',
      area: 'conf',
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
  ),
  'GET /conf/general': defineEndpoint('GET /conf/general', {
    operation: 'getGeneralConfiguration',
    area: 'conf',
    query: z.strictObject({ expand: oneOf(['ingest_form']) }),
    errors: generalError,
  }),
  // The schema marks scope required, the description optional (default: the institution); we
  // follow the description.
  'GET /conf/open-hours': defineEndpoint('GET /conf/open-hours', {
    operation: 'getOpenHours',
    area: 'conf',
    query: z.strictObject({ scope: text }),
    errors: {},
  }),
  'GET /conf/departments': defineEndpoint('GET /conf/departments', {
    operation: 'listDepartments',
    area: 'conf',
    // spec §4.1: view "default FULL; brief …", case as written.
    query: z.strictObject({ type: oneOf(['DIGI', 'ALL']), view: oneOf(['FULL', 'brief']) }),
    errors: generalError,
  }),

  // §4.2 organization units
  'GET /conf/libraries': defineEndpoint('GET /conf/libraries', {
    operation: 'listLibraries',
    area: 'conf',
    query: noQuery,
    errors: generalError,
  }),
  'GET /conf/libraries/{libraryCode}': defineEndpoint('GET /conf/libraries/{libraryCode}', {
    operation: 'getLibrary',
    area: 'conf',
    query: noQuery,
    errors: generalError,
  }),
  'GET /conf/libraries/{libraryCode}/circ-desks/': defineEndpoint(
    'GET /conf/libraries/{libraryCode}/circ-desks/',
    {
      operation: 'listCircDesks',
      area: 'conf',
      query: z.strictObject(listParams),
      errors: generalError,
      list: true,
    },
  ),
  'GET /conf/libraries/{libraryCode}/circ-desks/{circDeskCode}': defineEndpoint(
    'GET /conf/libraries/{libraryCode}/circ-desks/{circDeskCode}',
    {
      operation: 'getCircDesk',
      area: 'conf',
      query: noQuery,
      errors: { ...generalError, '401664': 'parameter missing or invalid' },
    },
  ),
  'GET /conf/libraries/{libraryCode}/locations': defineEndpoint(
    'GET /conf/libraries/{libraryCode}/locations',
    { operation: 'listLocations', area: 'conf', query: noQuery, errors: generalError },
  ),
  'GET /conf/libraries/{libraryCode}/locations/{locationCode}': defineEndpoint(
    'GET /conf/libraries/{libraryCode}/locations/{locationCode}',
    { operation: 'getLocation', area: 'conf', query: noQuery, errors: generalError },
  ),
  'PUT /conf/libraries/{libraryCode}/locations/{locationCode}': defineEndpoint(
    'PUT /conf/libraries/{libraryCode}/locations/{locationCode}',
    {
      operation: 'updateLocation',
      area: 'conf',
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
  ),
  'GET /conf/libraries/{libraryCode}/open-hours': defineEndpoint(
    'GET /conf/libraries/{libraryCode}/open-hours',
    {
      operation: 'getLibraryOpenHours',
      area: 'conf',
      // The range rules depend on today: the row reads the real clock, tests build their own.
      query: openHoursQuery(() => new Date()),
      errors: generalError,
    },
  ),

  // §4.3 jobs
  'GET /conf/jobs': defineEndpoint('GET /conf/jobs', {
    operation: 'listJobs',
    area: 'conf',
    query: JobListQuery,
    // The spec lists 40166410 twice, for an invalid category and for an invalid type.
    errors: { '40166410': 'invalid category or invalid type', '402219': 'jobs list failed' },
    list: true,
  }),
  'GET /conf/jobs/{job_id}': defineEndpoint('GET /conf/jobs/{job_id}', {
    operation: 'getJob',
    area: 'conf',
    query: noQuery,
    errors: {
      '402215': 'bad job id format',
      '402216': 'invalid job id',
      '402249': 'invalid scheduled job category',
    },
  }),
  'POST /conf/jobs/{job_id}': defineEndpoint('POST /conf/jobs/{job_id}', {
    operation: 'runJob',
    area: 'conf',
    // spec §3 and §4.3: op is required, run for manual and scheduled jobs.
    query: z.strictObject({ op: requiredOp(['run']) }),
    body: 'required',
    errors: jobSubmitCodes,
  }),
  'GET /conf/jobs/{job_id}/instances': defineEndpoint('GET /conf/jobs/{job_id}/instances', {
    operation: 'listJobInstances',
    area: 'conf',
    query: JobInstanceListQuery,
    errors: {
      '402215': 'bad job id format',
      '402216': 'invalid job id',
      '402217': 'invalid date format',
      '40166410': 'invalid status',
    },
    list: true,
  }),
  'GET /conf/jobs/{job_id}/instances/{instance_id}': defineEndpoint(
    'GET /conf/jobs/{job_id}/instances/{instance_id}',
    { operation: 'getJobInstance', area: 'conf', query: noQuery, errors: jobInstanceCodes },
  ),
  'GET /conf/jobs/{job_id}/instances/{instance_id}/download': defineEndpoint(
    'GET /conf/jobs/{job_id}/instances/{instance_id}/download',
    {
      operation: 'downloadJobInstance',
      area: 'conf',
      query: z.strictObject({ download_format: oneOf(['XML', 'BINARY']), line_type: text }),
      errors: jobInstanceCodes,
      download: true,
    },
  ),
  'GET /conf/jobs/{job_id}/instances/{instance_id}/events': defineEndpoint(
    'GET /conf/jobs/{job_id}/instances/{instance_id}/events',
    {
      operation: 'listJobInstanceEvents',
      area: 'conf',
      query: z.strictObject(listParams),
      errors: {
        ...jobInstanceCodes,
        '60333': 'error retrieving events',
        '60332': 'only USERS/SIS supported',
      },
      list: true,
    },
  ),

  // §4.4 profiles
  'GET /conf/deposit-profiles': defineEndpoint('GET /conf/deposit-profiles', {
    operation: 'listDepositProfiles',
    area: 'conf',
    query: z.strictObject({ ...listParams, user_group: text }),
    errors: {},
    list: true,
  }),
  'GET /conf/deposit-profiles/{deposit_profile_id}': defineEndpoint(
    'GET /conf/deposit-profiles/{deposit_profile_id}',
    { operation: 'getDepositProfile', area: 'conf', query: noQuery, errors: {} },
  ),
  'GET /conf/integration-profiles': defineEndpoint('GET /conf/integration-profiles', {
    operation: 'listIntegrationProfiles',
    area: 'conf',
    query: z.strictObject({ ...listParams, type: text, q: profileSearch }),
    errors: { '40166410': 'parameter value invalid', '40166404': 'invalid type' },
    list: true,
  }),
  'GET /conf/integration-profiles/{id}': defineEndpoint('GET /conf/integration-profiles/{id}', {
    operation: 'getIntegrationProfile',
    area: 'conf',
    query: noQuery,
    errors: { '60304': 'invalid profile id' },
  }),
  'GET /conf/md-import-profiles': defineEndpoint('GET /conf/md-import-profiles', {
    operation: 'listImportProfiles',
    area: 'conf',
    query: z.strictObject({ type: text, ie_type: text }),
    errors: { ...generalError, '402123': 'invalid parameter value' },
  }),
  'GET /conf/md-import-profiles/{profile_id}': defineEndpoint(
    'GET /conf/md-import-profiles/{profile_id}',
    {
      operation: 'getImportProfile',
      area: 'conf',
      query: noQuery,
      errors: { '401871': 'profile id not found' },
    },
  ),
  // Deprecated in favour of POST /conf/jobs/{job_id} (spec §9 rule 3); kept for FTP, OAI, Digital.
  'POST /conf/md-import-profiles/{profile_id}': defineEndpoint(
    'POST /conf/md-import-profiles/{profile_id}',
    {
      operation: 'runImportProfile',
      area: 'conf',
      query: z.strictObject({ op: requiredOp(['run']) }),
      errors: { '401871': 'profile id not found' },
    },
  ),

  // §4.5 letters, printers, reminders
  'GET /conf/letters': defineEndpoint('GET /conf/letters', {
    operation: 'listLetters',
    area: 'conf',
    query: z.strictObject({ type: oneOf(['LETTER', 'COMPONENT']) }),
    errors: { ...generalError, '60344': 'problem retrieving letter data' },
  }),
  'GET /conf/letters/{letterCode}': defineEndpoint('GET /conf/letters/{letterCode}', {
    operation: 'getLetter',
    area: 'conf',
    query: noQuery,
    errors: {
      ...generalError,
      '40166411': 'letter code not valid',
      '60344': 'problem retrieving letter data',
    },
  }),
  'PUT /conf/letters/{letterCode}': defineEndpoint('PUT /conf/letters/{letterCode}', {
    operation: 'updateLetter',
    area: 'conf',
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
  }),
  'GET /conf/printers': defineEndpoint('GET /conf/printers', {
    operation: 'listPrinters',
    area: 'conf',
    query: z.strictObject({
      ...listParams,
      library: text,
      printout_queue: text,
      name: text,
      code: text,
    }),
    errors: { '402469': 'library code not valid', '40166410': 'invalid parameter' },
    list: true,
  }),
  'GET /conf/printers/{printer_id}': defineEndpoint('GET /conf/printers/{printer_id}', {
    operation: 'getPrinter',
    area: 'conf',
    query: noQuery,
    errors: { '402899': 'invalid printer id' },
  }),
  'GET /conf/reminders': defineEndpoint('GET /conf/reminders', {
    operation: 'listReminders',
    area: 'conf',
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
  }),
  'POST /conf/reminders': defineEndpoint('POST /conf/reminders', {
    operation: 'createReminder',
    area: 'conf',
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
  }),
  'GET /conf/reminders/{reminder_id}': defineEndpoint('GET /conf/reminders/{reminder_id}', {
    operation: 'getReminder',
    area: 'conf',
    query: noQuery,
    errors: { '60177': 'id not valid' },
  }),
  'PUT /conf/reminders/{reminder_id}': defineEndpoint('PUT /conf/reminders/{reminder_id}', {
    operation: 'updateReminder',
    area: 'conf',
    query: noQuery,
    body: 'required',
    errors: {
      '40166410': 'invalid parameter value',
      '60177': 'id not valid',
      '60178': 'type not valid',
      '60179': 'status not valid',
      '60181': 'not updated',
    },
  }),
  'DELETE /conf/reminders/{reminder_id}': defineEndpoint('DELETE /conf/reminders/{reminder_id}', {
    operation: 'deleteReminder',
    area: 'conf',
    query: noQuery,
    errors: { '60177': 'id not valid' },
  }),

  // §4.6 sets
  'GET /conf/sets': defineEndpoint('GET /conf/sets', {
    operation: 'listSets',
    area: 'conf',
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
  }),
  // The spec writes "and body: a set" rather than "body required"; a create without its set
  // cannot succeed, so the body is required here.
  'POST /conf/sets': defineEndpoint('POST /conf/sets', {
    operation: 'createSet',
    area: 'conf',
    query: z.strictObject({ population: text }),
    body: 'required',
    errors: {},
  }),

  // §4.7 license terms
  'GET /conf/license-terms': defineEndpoint('GET /conf/license-terms', {
    operation: 'listLicenseTerms',
    area: 'conf',
    query: noQuery,
    errors: { '403401': 'retrieval failed' },
  }),
  'POST /conf/license-terms': defineEndpoint('POST /conf/license-terms', {
    operation: 'createLicenseTerm',
    area: 'conf',
    query: noQuery,
    body: 'required',
    errors: { ...licenseTermSaveCodes, '60196': 'not created' },
  }),
  'GET /conf/license-terms/{license_term_code}': defineEndpoint(
    'GET /conf/license-terms/{license_term_code}',
    {
      operation: 'getLicenseTerm',
      area: 'conf',
      query: noQuery,
      errors: { '403400': 'code not found', '403401': 'retrieval failed' },
    },
  ),
  'PUT /conf/license-terms/{license_term_code}': defineEndpoint(
    'PUT /conf/license-terms/{license_term_code}',
    {
      operation: 'updateLicenseTerm',
      area: 'conf',
      query: noQuery,
      body: 'required',
      errors: { '403400': 'code not found', ...licenseTermSaveCodes, '60202': 'not updated' },
    },
  ),
  'DELETE /conf/license-terms/{license_term_code}': defineEndpoint(
    'DELETE /conf/license-terms/{license_term_code}',
    {
      operation: 'deleteLicenseTerm',
      area: 'conf',
      query: noQuery,
      errors: { '403400': 'code not found', '60200': 'could not be deleted' },
    },
  ),
} as const;
