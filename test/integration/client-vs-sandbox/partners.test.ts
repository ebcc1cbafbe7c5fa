import {
  clientAgainstSandbox,
  expectRefusal,
  items,
  obj,
  routesOf,
  total,
  valueOf,
} from './client-vs-sandbox';
import type { ClientAgainstSandbox } from './client-vs-sandbox';

function partner(code: string, isoSymbol: string, name = `Partner ${code}`) {
  return {
    partner_details: {
      code,
      name,
      status: 'ACTIVE',
      profile_details: { profile_type: 'ISO', iso_details: { iso_symbol: isoSymbol } },
    },
  };
}

/** spec §4.8 and §5 rule 3 through the real client against the real sandbox. */
describe('client against sandbox: partners and lending requests (spec §4.8)', () => {
  let env: ClientAgainstSandbox;
  beforeAll(async () => {
    env = await clientAgainstSandbox();
  });
  afterAll(async () => {
    await env.close();
  });

  it('checks the key with GET and with POST /partners/operation/test', async () => {
    expect(obj(await env.request('GET /partners/operation/test')).result).toBe('OK');
    expect(obj(await env.request('POST /partners/operation/test')).message).toMatch(
      /read and write/,
    );
  });

  it('lists the partners, ACTIVE and INACTIVE adding up to all', async () => {
    const all = await env.request('GET /partners');
    const active = await env.request('GET /partners', { query: { status: 'ACTIVE' } });
    const inactive = await env.request('GET /partners', { query: { status: 'INACTIVE' } });
    expect(total(all)).toBe(5);
    expect(Number(total(active)) + Number(total(inactive))).toBe(5);
    expect(items(all, 'partner').map((p) => obj(p.partner_details).code)).toContain('RS-MIT');
  });

  it('collects every partner with paginate, two at a time', async () => {
    const codes: unknown[] = [];
    for await (const item of env.client.paginate('GET /partners', { query: { limit: 2 } })) {
      codes.push(obj(obj(item).partner_details).code);
    }
    expect(codes).toHaveLength(5);
  });

  it('creates a partner; again is 402113, another with its ISO symbol 411709, a missing name 401664 naming the field', async () => {
    const created = obj(await env.request('POST /partners', { body: partner('RS-KB', 'NL-KB') }));
    expect(obj(created.partner_details).code).toBe('RS-KB');
    await expectRefusal(
      env.request('POST /partners', { body: partner('RS-KB', 'NL-KB2') }),
      '402113',
      'partner already exists',
    );
    await expectRefusal(
      env.request('POST /partners', { body: partner('RS-KB2', 'nl-kb') }),
      '411709',
      'a partner with the same ISO symbol exists',
    );
    const body = partner('RS-NONAME', 'XX-1');
    const { name: _name, ...detailsWithoutName } = body.partner_details;
    const missing = await expectRefusal(
      env.request('POST /partners', { body: { partner_details: detailsWithoutName } }),
      '401664',
      'mandatory field missing (the message names the field)',
    );
    expect(missing.message).toContain('partner_details.name');
  });

  it('reads a partner; an unknown one is 402118', async () => {
    const read = obj(
      await env.request('GET /partners/{partner_code}', { path: { partner_code: 'RS-BOD' } }),
    );
    expect(obj(read.partner_details).name).toBe('Bodleian Libraries');
    await expectRefusal(
      env.request('GET /partners/{partner_code}', { path: { partner_code: 'RS-NOPE' } }),
      '402118',
      'partner not found',
    );
  });

  it('updates a partner; an unknown one is 402118', async () => {
    const updated = obj(
      await env.request('PUT /partners/{partner_code}', {
        path: { partner_code: 'RS-TIB' },
        body: partner('RS-TIB', 'DE-89', 'TIB Hannover (Leibniz)'),
      }),
    );
    expect(obj(updated.partner_details).name).toBe('TIB Hannover (Leibniz)');
    await expectRefusal(
      env.request('PUT /partners/{partner_code}', {
        path: { partner_code: 'RS-NOPE' },
        body: partner('RS-NOPE', 'XX-2'),
      }),
      '402118',
      'partner not found',
    );
  });

  it('deletes a partner (204); deleting it again is 401651', async () => {
    await env.request('POST /partners', { body: partner('RS-TMP', 'XX-TMP') });
    await expect(
      env.request('DELETE /partners/{partner_code}', { path: { partner_code: 'RS-TMP' } }),
    ).resolves.toBeUndefined();
    await expectRefusal(
      env.request('DELETE /partners/{partner_code}', { path: { partner_code: 'RS-TMP' } }),
      '401651',
      'identifier not found',
    );
  });

  it('creates a lending request and reads it back; an unknown request is 40166412', async () => {
    const created = obj(
      await env.request('POST /partners/{partner_code}/lending-requests', {
        path: { partner_code: 'RS-ETH' },
        body: { external_id: 'EXT-77', title: 'Principia Mathematica', citation_type: 'BOOK' },
      }),
    );
    const requestId = String(created.request_id);
    const read = obj(
      await env.request('GET /partners/{partner_code}/lending-requests/{request_id}', {
        path: { partner_code: 'RS-ETH', request_id: requestId },
      }),
    );
    expect([read.title, valueOf(read.citation_type), valueOf(read.partner)]).toEqual([
      'Principia Mathematica',
      'BOOK',
      'RS-ETH',
    ]);
    await expectRefusal(
      env.request('GET /partners/{partner_code}/lending-requests/{request_id}', {
        path: { partner_code: 'RS-ETH', request_id: '1' },
      }),
      '40166412',
      'failed to perform action',
    );
  });

  it('refuses a lending request without a title with 40166411', async () => {
    await expectRefusal(
      env.request('POST /partners/{partner_code}/lending-requests', {
        path: { partner_code: 'RS-ETH' },
        body: { external_id: 'EXT-78', citation_type: 'ARTICLE' },
      }),
      '40166411',
      'invalid parameter',
    );
  });

  it('called every operation of the partners part', () => {
    const missing = routesOf('partners').filter((route) => !env.called.has(route));
    expect(missing).toEqual([]);
  });
});
