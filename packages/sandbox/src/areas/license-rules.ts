import { badRequest } from '../sandbox-error';
import { arrayAt, code, enumField, textAt, type Body } from './body-fields';
import { codesOf } from './code-table-seed';
import { findTerm, TERM_VALUES } from './license-term-seed';
import { dayText, parseDay } from './query-rules';
import { findVendor, LICENSE_ADMINISTRATORS } from './seed-values';

export const LICENSE_STATUSES = ['ACTIVE', 'DELETED', 'DRAFT', 'EXPIRED', 'RETIRED'] as const;
export const LICENSE_TYPES = ['LICENSE', 'NEGOTIATION', 'ADDENDUM'] as const;

export interface LicenseRuleOptions {
  /** Where the license may be held: the institution and its libraries (60192). */
  readonly locations: readonly string[];
  /** Licenses check their administrator (60220); amendments do not (spec §4.12). */
  readonly checkAdministrator: boolean;
  readonly defaultType: (typeof LICENSE_TYPES)[number];
}

/** spec §4.12 license save codes 60186–60201 and 60220, in the order a reader checks them. */
export function validLicense(body: Body, options: LicenseRuleOptions): Body {
  const licenseCode = textAt(body, 'code');
  if (licenseCode === undefined) throw badRequest('60197', 'License code is required');
  const name = textAt(body, 'name');
  if (name === undefined) throw badRequest('60186', 'License name is required');
  const type = enumField(body, 'type', LICENSE_TYPES, options.defaultType, '60187');
  const status = enumField(body, 'status', LICENSE_STATUSES, 'ACTIVE', '60188');
  const review = enumField(
    body,
    'review_status',
    codesOf('LicenseReviewStatuses'),
    'INREVIEW',
    '60189',
  );
  const licensor = vendorField(body, 'licensor', '60190');
  const start = dateField(body, 'start_date');
  const end = dateField(body, 'end_date');
  if (start !== undefined && end !== undefined && end < start) {
    throw badRequest('60201', 'The end date is before the start date');
  }
  const location = textAt(body, 'location');
  if (location !== undefined && !options.locations.includes(location)) {
    throw badRequest('60192', `Location not valid: ${location}`);
  }
  const agent = vendorField(body, 'agent', '60193');
  const administrator = textAt(body, 'administrator');
  if (
    options.checkAdministrator &&
    administrator !== undefined &&
    !LICENSE_ADMINISTRATORS.includes(administrator)
  ) {
    throw badRequest('60220', `Administrator not valid: ${administrator}`);
  }
  return {
    ...body,
    code: licenseCode,
    name,
    type: code(type),
    status: code(status),
    review_status: code(review),
    licensor: licensor === undefined ? undefined : code(licensor.code, licensor.name),
    start_date: start === undefined ? undefined : dayText(start),
    end_date: end === undefined ? undefined : dayText(end),
    location: location === undefined ? undefined : code(location),
    agent: agent === undefined ? undefined : code(agent.code, agent.name),
    term: validTerms(body),
  };
}

function vendorField(body: Body, path: string, errorCode: string) {
  const text = textAt(body, path);
  if (text === undefined) return undefined;
  const vendor = findVendor(text);
  if (vendor === undefined) throw badRequest(errorCode, `${path} not valid: ${text}`);
  return vendor;
}

/** 60191 names the date that is not valid. */
function dateField(body: Body, path: string): Date | undefined {
  const text = textAt(body, path);
  if (text === undefined) return undefined;
  const day = parseDay(text);
  if (day === undefined) throw badRequest('60191', `Date not valid: ${path} ${text}`);
  return day;
}

/** 60194 an unknown term code, 60195 a value its term type does not take. */
function validTerms(body: Body): Body[] | undefined {
  const terms = arrayAt(body, 'term');
  if (terms.length === 0) return undefined;
  return terms.map((entry) => {
    const termCode = textAt(entry, 'code') ?? '';
    const term = findTerm(termCode);
    if (term === undefined) throw badRequest('60194', `Terms not valid: unknown term ${termCode}`);
    const value = textAt(entry, 'value') ?? '';
    if (!TERM_VALUES[term.type](value)) {
      throw badRequest(
        '60195',
        `Terms and types not valid: ${termCode} (${term.type}) cannot be ${value}`,
      );
    }
    return { code: code(term.code, term.name), value: code(value) };
  });
}
