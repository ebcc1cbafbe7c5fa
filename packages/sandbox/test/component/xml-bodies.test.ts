import { toPlatformXml } from 'svcws-listener';
import { platformAreas } from '../../src/areas';
import { startSandbox, type Reply, type SandboxUnderTest } from '../../src/testing/start-sandbox';

/**
 * spec §1 rule 2: request bodies are JSON or XML. An XML body is read into the object its JSON
 * twin gives (the platform's XML conventions: root unwrapped, `<terms><term>` to `term: [...]`,
 * values as text), so the same request in either format gets the same answer.
 */

const XML = { 'content-type': 'application/xml' };
/** Stamped with the clock or the server's address: not part of what the body decides. */
const VOLATILE = new Set([
  'link',
  'creation_date',
  'created_date',
  'modified_date',
  'additional_info',
]);

/**
 * An answer with every scalar as text (an XML body carries text only), a bare `{value}` code as
 * its text (both are `<status>ACTIVE</status>` in XML), and no volatile fields.
 */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === 'value')
      return comparable((value as { value: unknown }).value);
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !VOLATILE.has(key))
        .map(([key, child]) => [key, comparable(child)]),
    );
  }
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
}

interface Twin {
  readonly method: string;
  readonly path: string;
  readonly root: string;
  readonly body: Record<string, unknown>;
}

const TWINS: readonly Twin[] = [
  {
    method: 'POST',
    path: '/partners',
    root: 'partner',
    body: {
      partner_details: {
        code: 'XML-PARTNER',
        name: 'Partner sent as XML',
        status: { value: 'ACTIVE' },
        profile_details: { profile_type: { value: 'ISO' }, iso_details: { iso_symbol: 'XMLP' } },
      },
    },
  },
  {
    method: 'POST',
    path: '/acq/invoices',
    root: 'invoice',
    body: {
      number: 'XML-1',
      invoice_date: '2025-03-01',
      vendor: { value: 'EBSCO' },
      total_amount: 120.5,
      currency: { value: 'USD' },
    },
  },
  {
    method: 'POST',
    path: '/acq/licenses',
    root: 'license',
    body: {
      code: 'LIC-XML',
      name: 'License sent as XML',
      licensor: { value: 'EBSCO' },
      start_date: '2025-01-01',
      end_date: '2027-12-31',
      term: [
        { code: 'CONCURUSERS', value: '3' },
        { code: 'WALKIN', value: 'YES' },
      ],
    },
  },
  {
    method: 'PUT',
    path: '/conf/mapping-tables/VendorErpMapping',
    root: 'mapping_table',
    body: {
      name: 'VendorErpMapping',
      row: [
        { column0: 'HARRASSOWITZ', column1: 'ERP-1001', enabled: true },
        { column0: 'GOBI', column1: 'ERP-1003', enabled: true },
      ],
    },
  },
  {
    method: 'POST',
    path: '/conf/jobs/S8130?op=run',
    root: 'job',
    body: { id: 'S8130', parameter: [{ name: { value: 'set_id' }, value: '1234' }] },
  },
];

describe('XML request bodies (spec §1 rule 2)', () => {
  let sut: SandboxUnderTest;
  beforeEach(async () => {
    sut = await startSandbox({ SANDBOX_JOB_DURATION_MS: 60_000 }, { areas: platformAreas });
  });
  afterEach(async () => {
    await sut.close();
  });

  it.each(TWINS)('$method $path answers an XML body as its JSON twin', async (twin) => {
    const json = await sut.api(twin.method, twin.path, { body: JSON.stringify(twin.body) });
    expect(json.status).toBe(200);
    sut.sandbox.reset();
    const xml = await sut.api(twin.method, twin.path, {
      body: toPlatformXml(twin.root, twin.body),
      headers: XML,
    });
    expect(xml.status).toBe(200);
    expect(comparable(xml.json)).toEqual(comparable(json.json));
  });

  it('refuses an XML partner without a name with 401664 naming the field, as JSON', async () => {
    const body = { partner_details: { code: 'NO-NAME' } };
    const replies: Reply[] = [
      await sut.api('POST', '/partners', { body: JSON.stringify(body) }),
      await sut.api('POST', '/partners', { body: toPlatformXml('partner', body), headers: XML }),
    ];
    for (const reply of replies) {
      expect(reply.errorCode).toBe('401664');
      expect(reply.text).toContain('partner_details.name');
    }
  });

  it('reads code table rows from XML, refusing two default rows with 90122', async () => {
    const tables = await sut.api('GET', '/conf/code-tables');
    const name = String((tables.json.code_table as { name: string }[])[0]?.name);
    const body = {
      name,
      row: [
        { code: 'A', description: 'a', default: true },
        { code: 'B', description: 'b', default: true },
      ],
    };
    const reply = await sut.api('PUT', `/conf/code-tables/${name}`, {
      body: toPlatformXml('code_table', body),
      headers: XML,
    });
    expect(reply.errorCode).toBe('90122');
  });

  it('keeps the letter update XML only: JSON is 60105 even when malformed', async () => {
    const malformed = await sut.api('PUT', '/conf/letters/footer', { body: '{"code": ' });
    expect(malformed.errorCode).toBe('60105');
    const xml = await sut.api('PUT', '/conf/letters/footer', {
      body: '<letter><code>footer</code><description>XML footer</description></letter>',
      headers: XML,
    });
    expect(xml.status).toBe(200);
    expect(xml.json.description).toBe('XML footer');
  });
});
