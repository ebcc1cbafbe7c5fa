import type { Request, RequestHandler, Router } from 'express';
import { sendBody, sendList, sendNoContent } from '../respond';
import type { SandboxArea, SandboxContext } from '../sandbox-context';
import { badRequest } from '../sandbox-error';
import { code, objectBody, requiredText, textAt, type Body } from './body-fields';
import {
  createKeyedStore,
  createIdSequence,
  pick,
  randomInt,
  type KeyedStore,
} from './keyed-store';
import { enumParam } from './query-rules';

const STATUSES = ['ACTIVE', 'INACTIVE'] as const;
const PROFILE_TYPES = ['ISO', 'EMAIL', 'NCIP_P2P', 'ALMA'] as const;
const CITATION_TYPES = ['BOOK', 'ARTICLE'] as const;
const FORMATS = ['PHYSICAL', 'DIGITAL'] as const;

const SEED_PARTNERS = [
  ['RS-MIT', 'Massachusetts Institute of Technology', 'US-MCM'],
  ['RS-BOD', 'Bodleian Libraries', 'UK-OxU'],
  ['RS-ETH', 'ETH-Bibliothek Zurich', 'SZ-ZuETH'],
  ['RS-TIB', 'TIB Hannover', 'DE-89'],
  ['RS-NLA', 'National Library of Australia', 'AU-ANL'],
] as const;

const notFound = (partnerCode: string) => badRequest('402118', `Partner not found: ${partnerCode}`);

/** Resource-sharing partners and their lending requests, spec §4.8. */
export const partnersArea: SandboxArea = (router, ctx) => {
  const partners = createKeyedStore<Body>(notFound, seedPartners(ctx));
  const nextRequestId = createIdSequence(ctx.random, '0561');
  // Links are built on the way out: the port is known only once the sandbox listens.
  const withLink = (partner: Body): Body => ({
    ...partner,
    link: `${ctx.publicBaseUrl()}/svcws/v1/partners/${encodeURIComponent(String(textAt(partner, 'partner_details.code')))}`,
  });
  const book: PartnerBook = { partners, withLink };

  keyTestRoutes(router);
  router.get('/partners', (req, res) => {
    const status = enumParam(req.query, 'status', ['', ...STATUSES], '', '402119');
    const items = partners
      .list()
      .filter((partner) => status === '' || textAt(partner, 'partner_details.status') === status);
    sendList(req, res, items.map(withLink), { itemKey: 'partner' });
  });
  router.post('/partners', createPartner(book));
  router.get('/partners/:partner_code', (req, res) => {
    sendBody(req, res, withLink(partners.get(req.params.partner_code)), { xmlRoot: 'partner' });
  });
  router.put('/partners/:partner_code', updatePartner(book));
  router.delete(['/partners', '/partners/'], () => {
    throw badRequest('401650', 'Partner identifier is empty');
  });
  router.delete('/partners/:partner_code', (req, res) => {
    const partnerCode = req.params.partner_code.trim();
    if (partnerCode === '') throw badRequest('401650', 'Partner identifier is empty');
    partners.remove(partnerCode, (key) => badRequest('401651', `Identifier not found: ${key}`));
    sendNoContent(res);
  });
  lendingRequestRoutes(router, partners.has, nextRequestId);
};

interface PartnerBook {
  readonly partners: KeyedStore<Body>;
  /** The partner with its `link`, as every answer shows it. */
  readonly withLink: (partner: Body) => Body;
}

/** spec §5 rule 3: GET checks the key, POST also its read and write permission. */
function keyTestRoutes(router: Router): void {
  router.get('/partners/operation/test', (req, res) => {
    sendBody(
      req,
      res,
      { result: 'OK', message: 'API key is configured correctly' },
      { xmlRoot: 'test' },
    );
  });
  router.post('/partners/operation/test', (req, res) => {
    sendBody(
      req,
      res,
      { result: 'OK', message: 'API key has read and write permission' },
      { xmlRoot: 'test' },
    );
  });
}

function createPartner({ partners, withLink }: PartnerBook): RequestHandler {
  return (req, res) => {
    const partner = validPartner(req.body);
    const partnerCode = requiredText(partner, 'partner_details.code', '401664');
    // spec §4.8: the body must be a partner that does not yet exist.
    if (partners.has(partnerCode)) {
      throw badRequest('402113', `Partner already exists: ${partnerCode}`);
    }
    checkIsoSymbolFree(partners.list(), partner, partnerCode);
    sendBody(req, res, withLink(partners.put(partnerCode, partner)), { xmlRoot: 'partner' });
  };
}

function updatePartner({ partners, withLink }: PartnerBook): RequestHandler<{
  partner_code: string;
}> {
  return (req, res) => {
    const partnerCode = req.params.partner_code;
    partners.get(partnerCode);
    const partner = validPartner(req.body);
    const bodyCode = requiredText(partner, 'partner_details.code', '401664');
    if (bodyCode !== partnerCode) {
      throw badRequest('401664', `partner_details.code ${bodyCode} does not match ${partnerCode}`);
    }
    checkIsoSymbolFree(partners.list(), partner, partnerCode);
    sendBody(req, res, withLink(partners.put(partnerCode, partner)), { xmlRoot: 'partner' });
  };
}

/** A partner's lending requests: created, then read back by id (spec §4.8). */
function lendingRequestRoutes(
  router: Router,
  has: (partnerCode: string) => boolean,
  nextRequestId: () => string,
): void {
  const requests = new Map<string, Body>();
  router.post('/partners/:partner_code/lending-requests', (req, res) => {
    const partnerCode = knownPartner(has, req);
    const body = objectBody(req.body, '40166411');
    const request = lendingRequest(body, partnerCode, nextRequestId());
    requests.set(`${partnerCode}/${String(request.request_id)}`, request);
    sendBody(req, res, request, { xmlRoot: 'user_request' });
  });
  router.get('/partners/:partner_code/lending-requests/:request_id', (req, res) => {
    const partnerCode = knownPartner(has, req);
    const request = requests.get(`${partnerCode}/${req.params.request_id ?? ''}`);
    if (request === undefined) {
      throw badRequest(
        '40166412',
        `Failed to perform action: no lending request ${String(req.params.request_id)}`,
      );
    }
    sendBody(req, res, request, { xmlRoot: 'user_request' });
  });
}

function knownPartner(has: (key: string) => boolean, req: Request): string {
  const partnerCode = String(req.params.partner_code);
  if (!has(partnerCode))
    throw badRequest('40166411', `Invalid parameter partner_code: ${partnerCode}`);
  return partnerCode;
}

/**
 * spec §4.8: 401664 names the missing field; an ISO partner needs its ISO symbol. A value outside
 * its set is 401664 too ("parameter missing or invalid", its meaning in §4.2): the partner rows
 * list no other code, and 402119 is general only in configuration and acquisitions (§7 rule 2).
 */
function validPartner(raw: unknown): Body {
  const partner = objectBody(raw, '401664');
  requiredText(partner, 'partner_details.code', '401664');
  requiredText(partner, 'partner_details.name', '401664');
  const profileType = requiredText(
    partner,
    'partner_details.profile_details.profile_type',
    '401664',
  );
  if (!(PROFILE_TYPES as readonly string[]).includes(profileType)) {
    throw badRequest(
      '401664',
      `Invalid partner_details.profile_details.profile_type: ${profileType}`,
    );
  }
  if (profileType === 'ISO') {
    requiredText(partner, 'partner_details.profile_details.iso_details.iso_symbol', '401664');
  }
  const status = textAt(partner, 'partner_details.status') ?? 'ACTIVE';
  if (!(STATUSES as readonly string[]).includes(status)) {
    throw badRequest('401664', `Invalid partner_details.status: ${status}`);
  }
  return partner;
}

const ISO_SYMBOL = 'partner_details.profile_details.iso_details.iso_symbol';

/** spec §2: the ISO symbol is unique across partners (411709). */
function checkIsoSymbolFree(all: readonly Body[], partner: Body, partnerCode: string): void {
  const symbol = textAt(partner, ISO_SYMBOL)?.toLowerCase();
  if (symbol === undefined) return;
  const holder = all.find(
    (other) =>
      textAt(other, 'partner_details.code') !== partnerCode &&
      textAt(other, ISO_SYMBOL)?.toLowerCase() === symbol,
  );
  if (holder !== undefined) {
    throw badRequest(
      '411709',
      `A partner with the same ISO symbol exists: ${String(textAt(holder, 'partner_details.code'))}`,
    );
  }
}

function lendingRequest(body: Body, partnerCode: string, requestId: string): Body {
  const field = (name: string, valid?: readonly string[]): string => {
    const text = textAt(body, name);
    if (text === undefined || (valid !== undefined && !valid.includes(text.toUpperCase()))) {
      throw badRequest('40166411', `Invalid parameter ${name}: ${text ?? '(missing)'}`);
    }
    return text;
  };
  return {
    request_id: requestId,
    external_id: field('external_id'),
    partner: code(partnerCode),
    title: field('title'),
    citation_type: code(field('citation_type', CITATION_TYPES).toUpperCase()),
    format: code(
      textAt(body, 'format') === undefined ? 'PHYSICAL' : field('format', FORMATS).toUpperCase(),
    ),
    status: code('REQUEST_CREATED_LEND', 'Lending request created'),
    author: textAt(body, 'author'),
  };
}

function seedPartners(ctx: SandboxContext): [string, Body][] {
  return SEED_PARTNERS.map(([partnerCode, name, isoSymbol]) => [
    partnerCode,
    {
      partner_details: {
        code: partnerCode,
        name,
        status: code(pick(ctx.random, [...STATUSES, 'ACTIVE', 'ACTIVE'])),
        profile_details: {
          profile_type: code('ISO'),
          iso_details: { iso_symbol: isoSymbol, ill_port: randomInt(ctx.random, 1600, 1700) },
        },
        system_type: code('ALMA'),
        avg_supply_time: randomInt(ctx.random, 2, 10),
        delivery_delay: randomInt(ctx.random, 0, 3),
        currency: code('USD'),
        borrowing_supported: true,
        lending_supported: ctx.random() > 0.2,
      },
      contact_info: {
        email: [{ email_address: `ill@${partnerCode.toLowerCase().slice(3)}.example.org` }],
      },
    },
  ]);
}
