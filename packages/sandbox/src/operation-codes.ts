/**
 * The 400 codes each operation may answer (spec §4 rows) and the §7 rule 2 general codes the
 * sandbox chose to answer where a row has no code for a situation the spec itself creates (a
 * limit outside 0–100, §8; a value outside a documented set). Each choice is a row of the
 * product's table of spec choices (docs/choices.md). The error handler refuses to send a 400 whose
 * code is not here (create-sandbox.ts), so a client tested against the sandbox learns only
 * documented codes.
 *
 * `body` is the code for a request body the sandbox cannot read (malformed JSON or XML, not an
 * object); it is set exactly on the operations that take a body, and only those parse one.
 */
export interface OperationCodes {
  readonly section: string;
  /** `METHOD /path` relative to `/svcws/v1`, path variables in braces, as in spec §4. */
  readonly route: string;
  /** The codes the spec's row lists (shared code tables resolved). */
  readonly row: readonly string[];
  /** §7 rule 2 general codes the sandbox answers on this operation although the row lacks them. */
  readonly general?: readonly GeneralCode[];
  readonly body?: string;
  /** The body is XML only: JSON is not parsed, the route refuses it (spec §1 rule 2, §7 rule 5). */
  readonly xmlOnly?: true;
}

/** spec §7 rule 2: the codes with a meaning across operations. */
export const GENERAL_CODES = {
  '402119': 'general error (configuration and acquisitions areas)',
  '40166410': 'invalid parameter value',
  '40166411': 'invalid parameter',
  '60100': 'id or number not a number above zero',
} as const;
export type GeneralCode = keyof typeof GENERAL_CODES;

const INVOICE_SAVE = [
  '402119',
  '60233',
  '60288',
  '60234',
  '60235',
  '60236',
  '60237',
  '60238',
  '60239',
  '60240',
  '60241',
  '60242',
  '60243',
  '60244',
  '60245',
  '60246',
  '60252',
  '60253',
  '4028805',
  '60256',
];
const LINE_SAVE = [
  '402119',
  '60285',
  '60100',
  '412400',
  '60247',
  '60248',
  '60249',
  '60250',
  '60251',
  '60252',
  '60253',
  '60254',
  '60257',
];
/** License save codes without 60220 (administrator) and 402119 (update operations only). */
const LICENSE_SAVE = [
  '60186',
  '60187',
  '60188',
  '60189',
  '60190',
  '60191',
  '60192',
  '60193',
  '60194',
  '60195',
  '60197',
  '60198',
  '60201',
];
const JOB_SUBMIT = [
  '402215',
  '402216',
  '402220',
  '402221',
  '402222',
  '402223',
  '402224',
  '402225',
  '402226',
  '402228',
  '402229',
  '402248',
  '402249',
  '402231',
  '60347',
];
/** §8 page size and offset: a bad limit or offset on a list whose row lacks 40166410. */
const PAGED: readonly GeneralCode[] = ['40166410'];

export const OPERATION_CODES: readonly OperationCodes[] = [
  { section: '4.1', route: 'GET /conf/code-tables', row: ['402119', '40166411'] },
  { section: '4.1', route: 'GET /conf/code-tables/{codeTableName}', row: ['402119', '40166411'] },
  {
    section: '4.1',
    route: 'PUT /conf/code-tables/{codeTableName}',
    row: ['402119', '90100', '90101', '90102', '90121', '90122', '90123'],
    body: '402119',
  },
  { section: '4.1', route: 'GET /conf/mapping-tables', row: ['402119', '40166411'] },
  {
    section: '4.1',
    route: 'GET /conf/mapping-tables/{mappingTableName}',
    row: ['402119', '40166411'],
  },
  {
    section: '4.1',
    route: 'PUT /conf/mapping-tables/{mappingTableName}',
    row: ['402119', '90126', '90101', '90102', '90127', '90125'],
    body: '402119',
  },
  { section: '4.1', route: 'GET /conf/general', row: ['402119'] },
  { section: '4.1', route: 'GET /conf/open-hours', row: [], general: ['40166410'] },
  { section: '4.1', route: 'GET /conf/departments', row: ['402119'] },
  { section: '4.2', route: 'GET /conf/libraries', row: ['402119'] },
  { section: '4.2', route: 'GET /conf/libraries/{libraryCode}', row: ['402119'] },
  {
    section: '4.2',
    route: 'GET /conf/libraries/{libraryCode}/circ-desks/',
    row: ['402119'],
    general: PAGED,
  },
  {
    section: '4.2',
    route: 'GET /conf/libraries/{libraryCode}/circ-desks/{circDeskCode}',
    row: ['402119', '401664'],
  },
  { section: '4.2', route: 'GET /conf/libraries/{libraryCode}/locations', row: ['402119'] },
  {
    section: '4.2',
    route: 'GET /conf/libraries/{libraryCode}/locations/{locationCode}',
    row: ['402119'],
  },
  {
    section: '4.2',
    route: 'PUT /conf/libraries/{libraryCode}/locations/{locationCode}',
    row: ['401664', '60297', '60298', '60299', '60300', '60301', '60302'],
    body: '60302',
  },
  { section: '4.2', route: 'GET /conf/libraries/{libraryCode}/open-hours', row: ['402119'] },
  { section: '4.3', route: 'GET /conf/jobs', row: ['40166410', '402219'] },
  { section: '4.3', route: 'GET /conf/jobs/{job_id}', row: ['402215', '402216', '402249'] },
  { section: '4.3', route: 'POST /conf/jobs/{job_id}', row: JOB_SUBMIT, body: '402228' },
  {
    section: '4.3',
    route: 'GET /conf/jobs/{job_id}/instances',
    row: ['402215', '402216', '402217', '40166410'],
  },
  {
    section: '4.3',
    route: 'GET /conf/jobs/{job_id}/instances/{instance_id}',
    row: ['402215', '402216', '402218'],
  },
  {
    section: '4.3',
    route: 'GET /conf/jobs/{job_id}/instances/{instance_id}/download',
    row: ['402215', '402216', '402218'],
    general: ['40166410'],
  },
  {
    section: '4.3',
    route: 'GET /conf/jobs/{job_id}/instances/{instance_id}/events',
    row: ['402215', '402216', '402218', '60333', '60332'],
    general: PAGED,
  },
  { section: '4.4', route: 'GET /conf/deposit-profiles', row: [], general: PAGED },
  { section: '4.4', route: 'GET /conf/deposit-profiles/{deposit_profile_id}', row: [] },
  { section: '4.4', route: 'GET /conf/integration-profiles', row: ['40166410', '40166404'] },
  { section: '4.4', route: 'GET /conf/integration-profiles/{id}', row: ['60304'] },
  { section: '4.4', route: 'GET /conf/md-import-profiles', row: ['402119', '402123'] },
  { section: '4.4', route: 'GET /conf/md-import-profiles/{profile_id}', row: ['401871'] },
  {
    section: '4.4',
    route: 'POST /conf/md-import-profiles/{profile_id}',
    row: ['401871'],
    general: ['40166410', '402119'],
  },
  { section: '4.5', route: 'GET /conf/letters', row: ['402119', '60344'] },
  { section: '4.5', route: 'GET /conf/letters/{letterCode}', row: ['402119', '40166411', '60344'] },
  {
    section: '4.5',
    route: 'PUT /conf/letters/{letterCode}',
    row: ['60105', '402119', '40166411', '60344', '60343'],
    body: '60343',
    xmlOnly: true,
  },
  { section: '4.5', route: 'GET /conf/printers', row: ['402469', '40166410'] },
  { section: '4.5', route: 'GET /conf/printers/{printer_id}', row: ['402899'] },
  { section: '4.5', route: 'GET /conf/reminders', row: ['40166410'] },
  {
    section: '4.5',
    route: 'POST /conf/reminders',
    row: ['40166410', '60178', '60179', '60180', '60182', '60183', '60184', '60185'],
    body: '60180',
  },
  { section: '4.5', route: 'GET /conf/reminders/{reminder_id}', row: ['60177'] },
  {
    section: '4.5',
    route: 'PUT /conf/reminders/{reminder_id}',
    row: ['40166410', '60177', '60178', '60179', '60181'],
    body: '60181',
  },
  { section: '4.5', route: 'DELETE /conf/reminders/{reminder_id}', row: ['60177'] },
  { section: '4.6', route: 'GET /conf/sets', row: ['40166410', '60106', '60107'] },
  { section: '4.6', route: 'POST /conf/sets', row: [], general: ['40166410'], body: '40166410' },
  { section: '4.7', route: 'GET /conf/license-terms', row: ['403401'] },
  {
    section: '4.7',
    route: 'POST /conf/license-terms',
    row: ['500021', '60198', '60195', '60190', '60196'],
    body: '60196',
  },
  {
    section: '4.7',
    route: 'GET /conf/license-terms/{license_term_code}',
    row: ['403400', '403401'],
  },
  {
    section: '4.7',
    route: 'PUT /conf/license-terms/{license_term_code}',
    row: ['403400', '500021', '60198', '60195', '60190', '60202'],
    body: '60202',
  },
  {
    section: '4.7',
    route: 'DELETE /conf/license-terms/{license_term_code}',
    row: ['403400', '60200'],
  },
  { section: '4.8', route: 'GET /partners', row: ['402119', '401651'], general: PAGED },
  {
    section: '4.8',
    route: 'POST /partners',
    row: ['402113', '401664', '411709'],
    body: '401664',
  },
  { section: '4.8', route: 'GET /partners/{partner_code}', row: ['402118'] },
  {
    section: '4.8',
    route: 'PUT /partners/{partner_code}',
    row: ['402118', '401664', '411709'],
    body: '401664',
  },
  { section: '4.8', route: 'DELETE /partners/{partner_code}', row: ['401650', '401651'] },
  {
    section: '4.8',
    route: 'POST /partners/{partner_code}/lending-requests',
    row: ['40166411'],
    body: '40166411',
  },
  {
    section: '4.8',
    route: 'GET /partners/{partner_code}/lending-requests/{request_id}',
    row: ['40166411', '40166412'],
  },
  { section: '4.8', route: 'GET /partners/operation/test', row: [] },
  { section: '4.8', route: 'POST /partners/operation/test', row: [] },
  { section: '4.9', route: 'GET /acq/currencies', row: ['40166410', '401666', '60348'] },
  { section: '4.9', route: 'GET /acq/fiscal-periods', row: ['401873', '401666'] },
  {
    section: '4.10',
    route: 'GET /acq/funds',
    row: ['402119', '40166410', '40166419', '401873'],
  },
  {
    section: '4.10',
    route: 'POST /acq/funds',
    row: ['410873', '40166410', '40166404'],
    body: '410873',
  },
  { section: '4.10', route: 'GET /acq/funds/{fund_id}', row: [], general: ['40166410'] },
  {
    section: '4.10',
    route: 'PUT /acq/funds/{fund_id}',
    row: ['410873', '40166410', '40166404'],
    body: '410873',
  },
  { section: '4.10', route: 'POST /acq/funds/{fund_id}', row: ['410873', '40166410', '40166404'] },
  {
    section: '4.10',
    route: 'DELETE /acq/funds/{fund_id}',
    row: ['410873', '40166410', '40166404'],
  },
  {
    section: '4.10',
    route: 'GET /acq/funds/{fund_id}/transactions',
    row: ['402119', '40166410', '401873', '40166404', '60106'],
  },
  { section: '4.11', route: 'POST /acq/invoices', row: INVOICE_SAVE, body: '60256' },
  {
    section: '4.11',
    route: 'GET /acq/invoices/',
    row: ['402119', '412400', '401873'],
    general: PAGED,
  },
  {
    section: '4.11',
    route: 'GET /acq/invoices/{invoice_id}',
    row: ['402119', '412400', '402459', '60100'],
  },
  {
    section: '4.11',
    route: 'PUT /acq/invoices/{invoice_id}',
    row: [...INVOICE_SAVE, '60285', '60290', '60291', '60256'],
    general: ['60100'],
    body: '60256',
  },
  {
    section: '4.11',
    route: 'POST /acq/invoices/{invoice_id}',
    row: ['40166410', '412400', '60260', '60267', '60268'],
    general: ['60100'],
    body: '60260',
  },
  {
    section: '4.11',
    route: 'GET /acq/invoices/{invoice_id}/lines',
    row: ['402119', '412400', '402459', '60100', '401873'],
    general: PAGED,
  },
  {
    section: '4.11',
    route: 'POST /acq/invoices/{invoice_id}/lines',
    row: [...LINE_SAVE, '60255', '60306'],
    body: '60255',
  },
  {
    section: '4.11',
    route: 'GET /acq/invoices/{invoice_id}/lines/{invoice_line_id}',
    row: ['402119'],
    general: ['60100'],
  },
  {
    section: '4.11',
    route: 'PUT /acq/invoices/{invoice_id}/lines/{invoice_line_id}',
    row: [...LINE_SAVE, '60284', '60285', '60286', '60287'],
    body: '60284',
  },
  {
    section: '4.11',
    route: 'GET /acq/invoices/{invoice_id}/attachments',
    row: ['60323', '60100', '412400'],
    general: PAGED,
  },
  {
    section: '4.11',
    route: 'POST /acq/invoices/{invoice_id}/attachments',
    row: ['60100', '402401', '60322'],
    body: '60322',
  },
  {
    section: '4.11',
    route: 'GET /acq/invoices/{invoice_id}/attachments/{attachment_id}',
    row: ['60100', '402401', '60321', '60322'],
  },
  {
    section: '4.12',
    route: 'POST /acq/licenses',
    row: [...LICENSE_SAVE, '60220', '60196'],
    body: '60196',
  },
  {
    section: '4.12',
    route: 'GET /acq/licenses/',
    row: ['402119', '40166411', '40166404', '401873'],
    general: PAGED,
  },
  {
    section: '4.12',
    route: 'GET /acq/licenses/{license_code}',
    row: ['402119', '403401', '403400'],
  },
  {
    section: '4.12',
    route: 'PUT /acq/licenses/{license_code}',
    row: [...LICENSE_SAVE, '60220', '402119', '60202'],
    body: '60202',
  },
  { section: '4.12', route: 'DELETE /acq/licenses/{license_code}', row: ['402119', '60200'] },
  {
    section: '4.12',
    route: 'GET /acq/licenses/{license_code}/attachments',
    row: ['60323', '60100'],
    general: PAGED,
  },
  {
    section: '4.12',
    route: 'POST /acq/licenses/{license_code}/attachments',
    row: ['60100', '60322'],
    body: '60322',
  },
  {
    section: '4.12',
    route: 'GET /acq/licenses/{license_code}/attachments/{attachment_id}',
    row: ['60100', '60321', '60322'],
  },
  {
    section: '4.12',
    route: 'PUT /acq/licenses/{license_code}/attachments/{attachment_id}',
    row: ['60345', '60346', '60100', '60321', '60322'],
    body: '60322',
  },
  {
    section: '4.12',
    route: 'DELETE /acq/licenses/{license_code}/attachments/{attachment_id}',
    row: ['60100', '60321', '60322'],
  },
  {
    section: '4.12',
    route: 'GET /acq/licenses/{license_code}/amendments',
    row: ['402119', '403401', '403400'],
  },
  {
    section: '4.12',
    route: 'POST /acq/licenses/{license_code}/amendments',
    row: [...LICENSE_SAVE, '60196'],
    body: '60196',
  },
  {
    section: '4.12',
    route: 'GET /acq/licenses/{license_code}/amendments/{amendment_code}',
    row: ['402119', '403401', '403400'],
  },
  {
    section: '4.12',
    route: 'PUT /acq/licenses/{license_code}/amendments/{amendment_code}',
    row: [...LICENSE_SAVE, '402119', '60202'],
    body: '60202',
  },
  {
    section: '4.12',
    route: 'DELETE /acq/licenses/{license_code}/amendments/{amendment_code}',
    row: ['402119', '60200'],
  },
  { section: '4.13', route: 'GET /acq/po-lines', row: [], general: PAGED },
];
