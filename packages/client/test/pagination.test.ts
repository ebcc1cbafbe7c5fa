import { createSvcClient } from '../src';
import type { ServerResponse } from 'node:http';
import { SvcApiError } from '../src';
import { SvcParamError } from '../src';
import { sendJson, startServer } from './recording-server';
import type { RecordingServer } from './recording-server';

/** `<partners total_record_count="n"><partner><code>P0</code></partner>…</partners>`, with noise. */
function sendXmlPage(
  response: ServerResponse,
  partners: readonly { code: string }[],
  total: number | undefined,
): void {
  const count = total === undefined ? '' : ` total_record_count="${String(total)}"`;
  const items = partners.map(
    (partner) => `<partner note="a > b"><code>${partner.code}</code><!-- </partner> --></partner>`,
  );
  response.writeHead(200, { 'content-type': 'application/xml' });
  response.end(`<?xml version="1.0"?><partners${count}>${items.join('\n')}</partners>`);
}

/** How the server answers `GET /partners`: a total it claims and how many items it really has. */
let claimed: number | undefined;
let held = 0;

describe('paginate', () => {
  let server: RecordingServer;
  beforeAll(async () => {
    server = await startServer((request, response) => {
      const offset = Number(request.query.get('offset') ?? '0');
      const limit = Number(request.query.get('limit') ?? '10');
      const partner = Array.from(
        { length: Math.max(0, Math.min(limit, held - offset)) },
        (_unused, index) => ({ code: `P${offset + index}` }),
      );
      if (request.headers.accept === 'application/xml') {
        sendXmlPage(response, partner, claimed);
        return;
      }
      const body: Record<string, unknown> = partner.length > 0 ? { partner } : {};
      if (claimed !== undefined) body['total_record_count'] = claimed;
      sendJson(response, 200, body);
    });
  });
  afterAll(() => server.close());
  beforeEach(() => server.requests.splice(0));

  const client = () => createSvcClient({ baseUrl: server.baseUrl, apiKey: 'page-key' });

  it('yields all 250 items in 3 pages of 100, keeping the caller’s filters', async () => {
    claimed = 250;
    held = 250;
    const codes: unknown[] = [];

    for await (const item of client().paginate('GET /partners', { query: { status: 'ACTIVE' } })) {
      codes.push(item);
    }

    expect(codes).toHaveLength(250);
    expect(codes[249]).toEqual({ code: 'P249' });
    expect(server.requests.map((request) => request.query.get('offset'))).toEqual([
      '0',
      '100',
      '200',
    ]);
    expect(server.requests.every((request) => request.query.get('limit') === '100')).toBe(true);
    expect(server.requests.every((request) => request.query.get('status') === 'ACTIVE')).toBe(true);
  });

  it('stops at an empty page even when the total promises more', async () => {
    claimed = 1000;
    held = 100;

    const pages = [];
    for await (const page of client().paginate.pages('GET /partners')) pages.push(page);

    expect(pages.map((page) => page.items.length)).toEqual([100, 0]);
    expect(pages[0]).toMatchObject({ total: 1000, offset: 0 });
    expect(server.requests).toHaveLength(2);
  });

  it('stops at the first empty page when no total is given', async () => {
    claimed = undefined;
    held = 30;

    const items = [];
    for await (const item of client().paginate('GET /partners')) items.push(item);

    expect(items).toHaveLength(30);
    expect(server.requests).toHaveLength(2);
  });

  it('makes no request for an empty list with total 0', async () => {
    claimed = 0;
    held = 0;

    const items = [];
    for await (const item of client().paginate('GET /partners')) items.push(item);

    expect(items).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses an operation that is not a list', () => {
    expect(() =>
      client().paginate('GET /partners/{partner_code}', { path: { partner_code: 'P1' } }),
    ).toThrow(SvcParamError);
    expect(server.requests).toHaveLength(0);
  });

  describe('with XML answers', () => {
    it('yields each item element as XML text and stops at total_record_count', async () => {
      claimed = 150;
      held = 150;
      const items: unknown[] = [];

      for await (const item of client().paginate('GET /partners', { accept: 'xml' })) {
        items.push(item);
      }

      expect(items).toHaveLength(150);
      expect(items[149]).toBe(
        '<partner note="a > b"><code>P149</code><!-- </partner> --></partner>',
      );
      expect(server.requests.map((request) => request.query.get('offset'))).toEqual(['0', '100']);
      expect(server.requests.every((r) => r.headers.accept === 'application/xml')).toBe(true);
    });

    it('reads the total from the root and stops at an empty page without one', async () => {
      claimed = undefined;
      held = 100;

      const pages = [];
      for await (const page of client().paginate.pages('GET /partners', { format: 'xml' })) {
        pages.push(page);
      }

      expect(pages.map((page) => [page.items.length, page.total])).toEqual([
        [100, undefined],
        [0, undefined],
      ]);
    });

    it('reports a page that is not well-formed XML as an invalid answer', async () => {
      const broken = await startServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/xml' });
        response.end('<partners total_record_count="3"><partner></partners>');
      });
      const pages = createSvcClient({ baseUrl: broken.baseUrl, apiKey: 'page-key' }).paginate(
        'GET /partners',
        { accept: 'xml' },
      );

      try {
        await expect(pages.next()).rejects.toMatchObject({
          code: 'INVALID_RESPONSE',
          operation: 'listPartners',
        });
        await expect(
          createSvcClient({ baseUrl: broken.baseUrl, apiKey: 'page-key' })
            .paginate('GET /partners', { accept: 'xml' })
            .next(),
        ).rejects.toBeInstanceOf(SvcApiError);
      } finally {
        await broken.close();
      }
    });
  });
});
