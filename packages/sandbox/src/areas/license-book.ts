import type { Router } from 'express';
import type { SandboxContext } from '../sandbox-context';
import { badRequest, notFound, type SandboxError } from '../sandbox-error';
import { code, textAt, type Body } from './body-fields';
import { codesOf } from './code-table-seed';
import { attachmentRoutes, type AttachmentAction } from './attachments';
import { licenseAmendmentRoutes } from './license-amendments';
import type { LicenseRuleOptions } from './license-rules';
import { LICENSE_TERMS } from './license-term-seed';
import { createIdSequence, createKeyedStore, pick, type KeyedStore } from './keyed-store';
import { dayText, enumParam, type Query } from './query-rules';
import { LIBRARY_CODES, VENDORS } from './seed-values';

/** The licenses area's state, shared by its route handlers (licenses.ts). */
export interface LicenseBook {
  readonly licenses: KeyedStore<Body>;
  /** Amendments by license code, then amendment code. */
  readonly amendments: Map<string, Map<string, Body>>;
  readonly rules: LicenseRuleOptions;
  /** Today, as created_date and modified_date take it. */
  readonly stamp: () => string;
  /** The license as GET answers it: `expand`, `include_blank_terms` and `link` applied. */
  present(license: Body, query: Query, invalid?: string): Body;
}

const licenseNotFound = (licenseCode: string) =>
  badRequest('403400', `License not found: ${licenseCode}`);

/**
 * Seeds the licenses and registers the routes of their attachments (attachments.ts) and
 * amendments (license-amendments.ts), which need the licenses to find their owner.
 */
export function createLicenseBook(router: Router, ctx: SandboxContext): LicenseBook {
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
  const present = (license: Body, query: Query, invalid = '402119'): Body => {
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
  return { licenses, amendments, rules, stamp, present };
}

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
