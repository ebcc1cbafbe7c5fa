import type { Request, Response } from 'express';
import { pluralOf, toPlatformXml } from 'svcws-listener';
import { pageOf, parseListQuery } from './list-query';

/**
 * How areas use it (docs/platform-shapes.md):
 * - `sendBody(req, res, job, { xmlRoot: 'job' })` — one object, JSON or XML per `Accept`.
 * - `sendList(req, res, allMatchingItems, { itemKey: 'job' })` — validates `limit`/`offset` from
 *   `req.query` (or `query` when given; 400 40166410 when invalid), sends the page with
 *   `total_record_count` = all matching items. JSON `{ job: [...], total_record_count }`,
 *   XML `<jobs total_record_count="n"><job>…</job></jobs>`. Pass `paged: false` for the lists the
 *   spec gives no limit/offset (all items, still with the total).
 * - `sendNoContent(res)` — 204, no body, no governance header (spec §1 rule 4).
 * Throw `badRequest(code, message)` for 400s; the error middleware renders it.
 */

export type BodyFormat = 'json' | 'xml';

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

/** XML only when the client prefers it; JSON for a missing Accept or `*\/*` (spec §1 rule 2). */
export function formatOf(req: Request): BodyFormat {
  const accept = req.get('accept');
  if (accept === undefined || !/xml/i.test(accept)) return 'json';
  return req.accepts(['application/json', 'application/xml']) === 'application/xml'
    ? 'xml'
    : 'json';
}

export interface SendBodyOptions {
  readonly xmlRoot: string;
  readonly status?: number;
}

export function sendBody(
  req: Request,
  res: Response,
  body: Record<string, unknown>,
  { xmlRoot, status = 200 }: SendBodyOptions,
): void {
  res.status(status);
  if (formatOf(req) === 'xml') {
    res.type('application/xml').send(toPlatformXml(xmlRoot, body));
  } else {
    res.json(body);
  }
}

export interface SendListOptions {
  /** The singular item key: `job`, `counter`, `partner` … */
  readonly itemKey: string;
  /** Where limit/offset come from; `req.query` by default. */
  readonly query?: Record<string, unknown>;
  /** false for lists the spec gives no limit/offset: every item is sent. */
  readonly paged?: boolean;
  /** The XML root; the plural of itemKey by default. */
  readonly xmlRoot?: string;
}

export function sendList(
  req: Request,
  res: Response,
  items: readonly Record<string, unknown>[],
  { itemKey, query = req.query, paged = true, xmlRoot = pluralOf(itemKey) }: SendListOptions,
): void {
  const page = paged ? pageOf(items, parseListQuery(query)) : [...items];
  const total = items.length;
  if (formatOf(req) === 'xml') {
    res.type('application/xml').send(listXml(xmlRoot, itemKey, page, total));
    return;
  }
  res.json(
    page.length === 0
      ? { total_record_count: total }
      : { [itemKey]: page, total_record_count: total },
  );
}

export function sendNoContent(res: Response): void {
  res.removeHeader('X-Svc-Api-Remaining');
  res.status(204).end();
}

/** `<jobs total_record_count="n"><job>…</job>…</jobs>`: each item in the platform's conventions. */
function listXml(
  root: string,
  itemKey: string,
  items: readonly Record<string, unknown>[],
  total: number,
): string {
  const children = items.map((item) => withoutDeclaration(toPlatformXml(itemKey, item)));
  return `${XML_DECLARATION}<${root} total_record_count="${String(total)}">${children.join('')}</${root}>`;
}

function withoutDeclaration(xml: string): string {
  return xml.startsWith('<?xml') ? xml.slice(xml.indexOf('?>') + 2) : xml;
}
