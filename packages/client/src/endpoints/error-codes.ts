/**
 * 400 codes that several rows share (spec §4, §7). A row spreads the tables it references and adds
 * its own codes, so its `errors` holds every code the spec lists for it.
 */
type Codes = Readonly<Record<string, string>>;

/** spec §7 rule 2: the general error of the configuration and acquisitions areas. */
export const generalError: Codes = { '402119': 'general error' };

/**
 * spec §7 rule 2: codes with one meaning across operations. The meaning of a code an operation's
 * row does not list (the platform, or the sandbox, answering with a code the spec does not name
 * for that operation) falls back to these.
 */
export const generalMeanings: Codes = {
  ...generalError,
  '40166410': 'invalid parameter value',
  '40166411': 'invalid parameter',
  '60100': 'not a number above zero',
};

/** spec §4.3 "Job submit 400 codes", for POST /conf/jobs/{job_id}. */
export const jobSubmitCodes: Codes = {
  '402215': 'bad job id format',
  '402216': 'invalid job id',
  '402220': 'operation not given',
  '402221': 'operation not supported',
  '402222': 'execution threshold reached',
  '402223': 'execution threshold reached',
  '402224': 'internal error',
  '402225': 'internal error',
  '402226': 'internal error',
  '402228': 'mandatory parameter missing from input',
  '402229': 'mandatory parameter value empty',
  '402248': 'scheduled job cannot be submitted',
  '402249': 'invalid scheduled job category',
  '402231': 'job consists of more than one task',
  '60347': 'job overlaps a running job',
};

/** spec §4.11 "Invoice save codes (create and update)"; 60256 is added per row. */
export const invoiceSaveCodes: Codes = {
  ...generalError,
  '60233': 'invoice number missing',
  '60288': 'invoice number not unique in the payload',
  '60234': 'invoice date missing',
  '60235': 'total amount missing',
  '60236': 'currency not valid',
  '60237': 'vendor account not valid',
  '60238': 'payment method not valid',
  '60239': 'status not valid',
  '60240': 'prepaid not valid',
  '60241': 'explicit ratio not valid',
  '60242': 'vendor is not a material supplier',
  '60243': 'vendor currency not supported',
  '60244': 'duplicate currency in the explicit ratio',
  '60245': 'payment status not valid',
  '60246': 'owner not valid',
  '60252': 'vat percentage or vat amount allowed, not both',
  '60253': 'vat code not valid',
  '4028805': 'vendor missing from the payload',
};

/** spec §4.11 "Invoice line save codes". */
export const invoiceLineSaveCodes: Codes = {
  ...generalError,
  '60285': 'invoice not valid',
  '60100': 'invoice id bad format',
  '412400': 'invoice not found',
  '60247': 'line type not valid',
  '60248': "the line's PO line not found",
  '60249': 'subscription from/to dates not found',
  '60250': 'additional information not found',
  '60251': 'reporting code not valid',
  '60252': 'vat percentage or amount, not both',
  '60253': 'vat code not valid',
  '60254': 'fund code not valid',
  '60257': 'fund percent or amount required',
};

/**
 * spec §4.12 "License save codes (create and update)" without its two qualified codes: 60220
 * (administrator, license create and update only, not amendments) and 402119 (update operations
 * only). Rows add those where they apply.
 */
export const licenseSaveCodes: Codes = {
  '60186': 'name required',
  '60187': 'type not valid',
  '60188': 'status not valid',
  '60189': 'review status not valid',
  '60190': 'licensor not valid',
  '60191': 'a date (named in the message) not valid',
  '60192': 'location not valid',
  '60193': 'agent not valid',
  '60194': 'terms not valid',
  '60195': 'terms and types not valid',
  '60197': 'code required',
  '60198': 'code not unique',
  '60201': 'end date before start date',
};

/** spec §4.12 license save code 60220: license create and update only. */
export const licenseAdministratorCode: Codes = { '60220': 'administrator not valid' };
