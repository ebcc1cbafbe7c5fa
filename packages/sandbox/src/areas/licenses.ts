import type { RequestHandler } from 'express';
import { sendBody, sendList, sendNoContent } from '../respond';
import type { SandboxArea } from '../sandbox-context';
import { badRequest } from '../sandbox-error';
import { code, objectBody, textAt, type Body } from './body-fields';
import { codesOf } from './code-table-seed';
import { createLicenseBook, type LicenseBook } from './license-book';
import { LICENSE_STATUSES, LICENSE_TYPES, validLicense } from './license-rules';
import { dateParam, dayText, enumParam, type Query } from './query-rules';
import { matchesSearch, recordValues, searchParam } from './search-query';

const SEARCH_FIELDS = ['all', 'name', 'code', 'licensor'];

type LicenseHandler = RequestHandler<{ license_code: string }>;

/** Licenses with attachments and amendments (license-amendments.ts): spec §4.12. */
export const licensesArea: SandboxArea = (router, ctx) => {
  const book = createLicenseBook(router, ctx);
  router.get(['/acq/licenses', '/acq/licenses/'], listLicenses(book));
  router.post(['/acq/licenses', '/acq/licenses/'], createLicense(book));
  router.get('/acq/licenses/:license_code', (req, res) => {
    sendBody(req, res, book.present(book.licenses.get(req.params.license_code), req.query), {
      xmlRoot: 'license',
    });
  });
  router.put('/acq/licenses/:license_code', updateLicense(book));
  router.delete('/acq/licenses/:license_code', deleteLicense(book));
};

function listLicenses({ licenses, present }: LicenseBook): RequestHandler {
  return (req, res) => {
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
    const dates = dateFilters(req.query);
    const items = licenses.list().filter((license) => {
      const licenseStatus = textAt(license, 'status');
      // spec §4.12: deleted licenses are excluded unless status asks for them.
      const statusOk = status === 'ALL' ? licenseStatus !== 'DELETED' : licenseStatus === status;
      return (
        statusOk &&
        (type === 'ALL' || textAt(license, 'type') === type) &&
        (review === 'ALL' || textAt(license, 'review_status') === review) &&
        dates(license) &&
        matchesSearch(license, terms, SEARCH_FIELDS, recordValues)
      );
    });
    sendList(
      req,
      res,
      items.map((license) => present(license, req.query, '40166411')),
      { itemKey: 'license' },
    );
  };
}

/** The list's created and modified date ranges, as one test of a license. */
function dateFilters(query: Query): (license: Body) => boolean {
  const day = (name: string) => {
    const date = dateParam(query, name, '40166411');
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
  return (license) =>
    within(license.created_date, createdFrom, createdTo) &&
    within(license.modified_date, modifiedFrom, modifiedTo);
}

function createLicense({ licenses, rules, stamp, present }: LicenseBook): RequestHandler {
  return (req, res) => {
    const license = validLicense(objectBody(req.body, '60196'), rules);
    const licenseCode = String(license.code);
    if (licenses.has(licenseCode))
      throw badRequest('60198', `License code not unique: ${licenseCode}`);
    licenses.put(licenseCode, { ...license, created_date: stamp(), modified_date: stamp() });
    sendBody(req, res, present(licenses.get(licenseCode), {}), { xmlRoot: 'license' });
  };
}

function updateLicense({ licenses, rules, stamp, present }: LicenseBook): LicenseHandler {
  return (req, res) => {
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
  };
}

function deleteLicense({ licenses, amendments, stamp }: LicenseBook): LicenseHandler {
  return (req, res) => {
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
  };
}
