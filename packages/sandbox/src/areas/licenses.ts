import { sendBody, sendList, sendNoContent } from '../respond';
import type { SandboxArea, SandboxContext } from '../sandbox-context';
import { badRequest, notFound, type SandboxError } from '../sandbox-error';
import { code, objectBody, textAt, type Body } from './body-fields';
import { codesOf } from './code-table-seed';
import { attachmentRoutes, type AttachmentAction } from './attachments';
import { licenseAmendmentRoutes } from './license-amendments';
import {
  LICENSE_STATUSES,
  LICENSE_TYPES,
  validLicense,
  type LicenseRuleOptions,
} from './license-rules';
import { LICENSE_TERMS } from './license-term-seed';
import { createIdSequence, createKeyedStore, pick } from './keyed-store';
import { dateParam, dayText, enumParam } from './query-rules';
import { matchesSearch, recordValues, searchParam } from './search-query';
import { LIBRARY_CODES, VENDORS } from './seed-values';

const SEARCH_FIELDS = ['all', 'name', 'code', 'licensor'];

const licenseNotFound = (licenseCode: string) =>
  badRequest('403400', `License not found: ${licenseCode}`);

/**
 * An attachment route's answer for an unknown license: the rows of §4.12 list no "license not
 * found", so each uses its own nearest code — the list's 60323 (search failed), the attachment's
 * 60321 (not found) — and the create, with no such code, a 404 (sandbox-error.ts).
 */
function attachmentOwnerMissing(action: AttachmentAction): (key: string) => SandboxError {
  if (action === 'list') return (key) => badRequest('60323', `Search failed: no license ${key}`);
  if (action === 'create') return (key) => notFound(`License not found: ${key}`);
  return (key) => badRequest('60321', `Attachment not found: no license ${key}`);
}

/** Licenses with attachments and amendments (license-amendments.ts): spec §4.12. */
export const licensesArea: SandboxArea = (router, ctx) => {
  const locations = [ctx.institution.code, ...LIBRARY_CODES];
  const rules: LicenseRuleOptions = { locations, checkAdministrator: true, defaultType: 'LICENSE' };
  const licenses = createKeyedStore<Body>(licenseNotFound, seedLicenses(ctx));
  const amendments = new Map<string, Map<string, Body>>();
  const stamp = () => dayText(ctx.now());
  const attachments = attachmentRoutes(router, {
    ownerPath: '/acq/licenses/:parent',
    owner: (req, action) =>
      String(licenses.get(String(req.params.parent), attachmentOwnerMissing(action)).code),
    writable: true,
    nextId: createIdSequence(ctx.random, '0361'),
    now: ctx.now,
  });
  licenseAmendmentRoutes(router, { licenses, amendments, locations, stamp });

  // The list's row has 40166411 for a bad expand; the read's row only 402119 (spec §4.12).
  const present = (license: Body, query: Record<string, unknown>, invalid = '402119'): Body => {
    const expand = enumParam(query, 'expand', ['none', 'attachments'], 'none', invalid);
    const blank = enumParam(query, 'include_blank_terms', ['false', 'true'], 'false', '402119');
    const given = (license.term as Body[] | undefined) ?? [];
    const blanks = LICENSE_TERMS.filter(
      (term) => !given.some((entry) => textAt(entry, 'code') === term.code),
    );
    return {
      ...license,
      term:
        blank === 'true'
          ? [...given, ...blanks.map((term) => ({ code: code(term.code, term.name), value: null }))]
          : license.term,
      attachment: expand === 'attachments' ? attachments.briefOf(String(license.code)) : undefined,
      link: `${ctx.publicBaseUrl()}/svcws/v1/acq/licenses/${String(license.code)}`,
    };
  };

  router.get(['/acq/licenses', '/acq/licenses/'], (req, res) => {
    const terms = searchParam(req.query, SEARCH_FIELDS, '40166411');
    const status = enumParam(req.query, 'status', ['ALL', ...LICENSE_STATUSES], 'ALL', '40166404');
    const type = enumParam(req.query, 'type', ['ALL', ...LICENSE_TYPES], 'LICENSE', '40166404');
    const review = enumParam(
      req.query,
      'review_status',
      ['ALL', ...codesOf('LicenseReviewStatuses')],
      'ALL',
      '40166404',
    );
    const day = (name: string) => {
      const date = dateParam(req.query, name, '40166411');
      return date === undefined ? undefined : dayText(date);
    };
    const [createdFrom, createdTo, modifiedFrom, modifiedTo] = [
      day('create_date_from'),
      day('create_date_to'),
      day('modify_date_from'),
      day('modify_date_to'),
    ];
    const within = (value: unknown, from: string | undefined, to: string | undefined) =>
      (from === undefined || String(value) >= from) && (to === undefined || String(value) <= to);
    const items = licenses.list().filter((license) => {
      const licenseStatus = textAt(license, 'status');
      // spec §4.12: deleted licenses are excluded unless status asks for them.
      const statusOk = status === 'ALL' ? licenseStatus !== 'DELETED' : licenseStatus === status;
      return (
        statusOk &&
        (type === 'ALL' || textAt(license, 'type') === type) &&
        (review === 'ALL' || textAt(license, 'review_status') === review) &&
        within(license.created_date, createdFrom, createdTo) &&
        within(license.modified_date, modifiedFrom, modifiedTo) &&
        matchesSearch(license, terms, SEARCH_FIELDS, recordValues)
      );
    });
    sendList(
      req,
      res,
      items.map((license) => present(license, req.query, '40166411')),
      { itemKey: 'license' },
    );
  });

  router.post(['/acq/licenses', '/acq/licenses/'], (req, res) => {
    const license = validLicense(objectBody(req.body, '60196'), rules);
    const licenseCode = String(license.code);
    if (licenses.has(licenseCode))
      throw badRequest('60198', `License code not unique: ${licenseCode}`);
    licenses.put(licenseCode, { ...license, created_date: stamp(), modified_date: stamp() });
    sendBody(req, res, present(licenses.get(licenseCode), {}), { xmlRoot: 'license' });
  });

  router.get('/acq/licenses/:license_code', (req, res) => {
    sendBody(req, res, present(licenses.get(req.params.license_code), req.query), {
      xmlRoot: 'license',
    });
  });

  router.put('/acq/licenses/:license_code', (req, res) => {
    const licenseCode = req.params.license_code;
    const current = licenses.get(licenseCode, (key) =>
      badRequest('60202', `License not updated: no license ${key}`),
    );
    const body = objectBody(req.body, '60202');
    if (textAt(body, 'code') !== undefined && textAt(body, 'code') !== licenseCode) {
      throw badRequest('60202', `License not updated: its code cannot change (${licenseCode})`);
    }
    const { link: _link, attachment: _attachment, ...fields } = body;
    const license = validLicense({ ...current, ...fields, code: licenseCode }, rules);
    licenses.put(licenseCode, { ...license, modified_date: stamp() });
    sendBody(req, res, present(licenses.get(licenseCode), {}), { xmlRoot: 'license' });
  });

  router.delete('/acq/licenses/:license_code', (req, res) => {
    const license = licenses.get(req.params.license_code, (key) =>
      badRequest('60200', `License could not be deleted: no license ${key}`),
    );
    const hasAmendments = (amendments.get(req.params.license_code)?.size ?? 0) > 0;
    if (hasAmendments || textAt(license, 'status') === 'DELETED') {
      throw badRequest(
        '60200',
        `License could not be deleted: it has amendments or is deleted already`,
      );
    }
    // Deleting marks the license DELETED: status=DELETED still lists it (spec §4.12).
    license.status = code('DELETED');
    license.modified_date = stamp();
    sendNoContent(res);
  });
};

function seedLicenses(ctx: SandboxContext): [string, Body][] {
  const rows: [string, string, string, string][] = [
    ['LIC-NATURE', 'Nature Publishing license', 'LICENSE', 'ACTIVE'],
    ['LIC-JSTOR', 'JSTOR Arts & Sciences', 'LICENSE', 'ACTIVE'],
    ['LIC-OED', 'Oxford English Dictionary Online', 'LICENSE', 'EXPIRED'],
    ['LIC-PQ-DRAFT', 'ProQuest Central draft', 'LICENSE', 'DRAFT'],
    ['LIC-OLD', 'Retired CD-ROM license', 'LICENSE', 'DELETED'],
    ['NEG-ELSEVIER', 'Elsevier negotiation', 'NEGOTIATION', 'ACTIVE'],
  ];
  return rows.map(([licenseCode, name, type, status], index) => {
    const created = dayText(new Date(Date.UTC(2023, index * 2, 10)));
    return [
      licenseCode,
      {
        code: licenseCode,
        name,
        type: code(type),
        status: code(status),
        review_status: code(pick(ctx.random, codesOf('LicenseReviewStatuses'))),
        licensor: code(VENDORS[index % 4]?.code ?? 'EBSCO', VENDORS[index % 4]?.name ?? ''),
        start_date: dayText(new Date(Date.UTC(2023, 0, 1))),
        end_date: dayText(new Date(Date.UTC(2026, 11, 31))),
        location: code(ctx.institution.code),
        term: [
          { code: code('WALKIN', 'Walk-in user'), value: code(pick(ctx.random, ['YES', 'NO'])) },
          { code: code('ILLPRINT', 'Interlibrary loan print or fax'), value: code('PERMITTED') },
        ],
        created_date: created,
        modified_date: created,
      },
    ];
  });
}
