import type { RequestHandler, Router } from 'express';
import { sendBody, sendList, sendNoContent } from '../respond';
import { badRequest } from '../sandbox-error';
import { objectBody, textAt, type Body } from './body-fields';
import type { KeyedStore } from './keyed-store';
import { validLicense, type LicenseRuleOptions } from './license-rules';

export interface AmendmentDeps {
  readonly licenses: KeyedStore<Body>;
  /** license code → amendment code → amendment */
  readonly amendments: Map<string, Map<string, Body>>;
  readonly locations: readonly string[];
  readonly stamp: () => string;
}

type AmendmentHandler = RequestHandler<{ license_code: string; amendment_code: string }>;

/** License amendments: the license save codes without 60220 (spec §4.12). */
export function licenseAmendmentRoutes(router: Router, deps: AmendmentDeps): void {
  const rules: LicenseRuleOptions = {
    locations: deps.locations,
    checkAdministrator: false,
    defaultType: 'ADDENDUM',
  };
  const book = amendmentBook(deps);
  const path = '/acq/licenses/:license_code/amendments';

  router.get(path, (req, res) => {
    sendList(req, res, [...book.of(req.params.license_code).values()], {
      itemKey: 'license',
      paged: false,
    });
  });
  router.post(path, createAmendment(deps, book, rules));
  router.get(`${path}/:amendment_code`, (req, res) => {
    const [, amendment] = book.one(req.params.license_code, req.params.amendment_code);
    sendBody(req, res, amendment, { xmlRoot: 'license' });
  });
  router.put(`${path}/:amendment_code`, updateAmendment(deps, book, rules));
  router.delete(`${path}/:amendment_code`, (req, res) => {
    const [amendments] = book.one(req.params.license_code, req.params.amendment_code, '60200');
    amendments.delete(req.params.amendment_code);
    sendNoContent(res);
  });
}

interface AmendmentBook {
  /** A license's amendments; `missing` when the license is unknown. */
  of(licenseCode: string, missing?: string): Map<string, Body>;
  /** One amendment with its license's amendments; `missing` when either is unknown. */
  one(licenseCode: string, amendmentCode: string, missing?: string): [Map<string, Body>, Body];
}

function amendmentBook(deps: AmendmentDeps): AmendmentBook {
  // The reads list 403400 (not found); the writes do not, so an unknown license or amendment is
  // their own "not created / not updated / could not be deleted" code (spec §4.12 rows).
  const of = (licenseCode: string, missing = '403400'): Map<string, Body> => {
    deps.licenses.get(licenseCode, (key) => badRequest(missing, `License not found: ${key}`));
    const existing = deps.amendments.get(licenseCode) ?? new Map<string, Body>();
    deps.amendments.set(licenseCode, existing);
    return existing;
  };
  const one = (
    licenseCode: string,
    amendmentCode: string,
    missing = '403400',
  ): [Map<string, Body>, Body] => {
    const amendments = of(licenseCode, missing);
    const amendment = amendments.get(amendmentCode);
    if (amendment === undefined) throw badRequest(missing, `Amendment not found: ${amendmentCode}`);
    return [amendments, amendment];
  };
  return { of, one };
}

function createAmendment(
  deps: AmendmentDeps,
  book: AmendmentBook,
  rules: LicenseRuleOptions,
): RequestHandler<{ license_code: string }> {
  return (req, res) => {
    const amendments = book.of(req.params.license_code, '60196');
    const amendment = validLicense(objectBody(req.body, '60196'), rules);
    const amendmentCode = String(amendment.code);
    if (amendments.has(amendmentCode) || deps.licenses.has(amendmentCode)) {
      throw badRequest('60198', `License code not unique: ${amendmentCode}`);
    }
    const stored = { ...amendment, created_date: deps.stamp(), modified_date: deps.stamp() };
    amendments.set(amendmentCode, stored);
    sendBody(req, res, stored, { xmlRoot: 'license' });
  };
}

function updateAmendment(
  deps: AmendmentDeps,
  book: AmendmentBook,
  rules: LicenseRuleOptions,
): AmendmentHandler {
  return (req, res) => {
    const amendmentCode = req.params.amendment_code;
    const [amendments, current] = book.one(req.params.license_code, amendmentCode, '60202');
    const body = objectBody(req.body, '60202');
    if (textAt(body, 'code') !== undefined && textAt(body, 'code') !== amendmentCode) {
      throw badRequest('60202', `Amendment not updated: its code cannot change (${amendmentCode})`);
    }
    const updated = {
      ...validLicense({ ...current, ...body, code: amendmentCode }, rules),
      modified_date: deps.stamp(),
    };
    amendments.set(amendmentCode, updated);
    sendBody(req, res, updated, { xmlRoot: 'license' });
  };
}
