import { partnersArea } from '../../../src/areas/partners';
import { useAreaServer } from './area-server';

const isoPartner = (partnerCode: string, isoSymbol: string, name = 'Test partner') => ({
  partner_details: {
    code: partnerCode,
    name,
    status: { value: 'ACTIVE' },
    profile_details: { profile_type: { value: 'ISO' }, iso_details: { iso_symbol: isoSymbol } },
  },
});

describe('partners area (spec §4.8)', () => {
  const call = useAreaServer(partnersArea);

  it('lists the seeded partners with a total, and filters by status', async () => {
    const all = await call('GET', '/partners?limit=100');
    expect(all.status).toBe(200);
    expect(all.json.total_record_count).toBe(5);
    const active = await call('GET', '/partners?status=ACTIVE&limit=100');
    const partners = active.json.partner as { partner_details: { status: { value: string } } }[];
    expect(partners.every((p) => p.partner_details.status.value === 'ACTIVE')).toBe(true);
  });

  it('refuses an unknown status filter with 402119', async () => {
    expect((await call('GET', '/partners?status=SLEEPING')).errorCode).toBe('402119');
  });

  it('creates, reads, updates and deletes a partner', async () => {
    const created = await call('POST', '/partners', {
      body: isoPartner('RS-NEW', 'XX-NEW'),
    });
    expect(created.status).toBe(200);
    expect(String(created.json.link)).toMatch(/\/svcws\/v1\/partners\/RS-NEW$/);
    const read = await call('GET', '/partners/RS-NEW');
    expect(read.json.partner_details).toMatchObject({ code: 'RS-NEW', name: 'Test partner' });
    const updated = await call('PUT', '/partners/RS-NEW', {
      body: isoPartner('RS-NEW', 'XX-NEW', 'Renamed partner'),
    });
    expect(updated.json.partner_details).toMatchObject({ name: 'Renamed partner' });
    const deleted = await call('DELETE', '/partners/RS-NEW');
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await call('GET', '/partners/RS-NEW')).errorCode).toBe('402118');
  });

  it('refuses to create a partner that exists with 402113', async () => {
    const reply = await call('POST', '/partners', { body: isoPartner('RS-MIT', 'ZZ-1') });
    expect(reply.status).toBe(400);
    expect(reply.errorCode).toBe('402113');
  });

  it.each([
    [
      'partner_details.code',
      { partner_details: { name: 'n', profile_details: { profile_type: 'EMAIL' } } },
    ],
    [
      'partner_details.name',
      { partner_details: { code: 'RS-X1', profile_details: { profile_type: 'EMAIL' } } },
    ],
    [
      'partner_details.profile_details.profile_type',
      { partner_details: { code: 'RS-X2', name: 'n' } },
    ],
    [
      'partner_details.profile_details.iso_details.iso_symbol',
      { partner_details: { code: 'RS-X3', name: 'n', profile_details: { profile_type: 'ISO' } } },
    ],
  ])('answers 401664 naming the missing field %s', async (field, body) => {
    const reply = await call('POST', '/partners', { body });
    expect(reply.errorCode).toBe('401664');
    expect(reply.text).toContain(field);
  });

  it('refuses a second partner with the same ISO symbol with 411709, on create and update', async () => {
    const create = await call('POST', '/partners', { body: isoPartner('RS-DUP', 'us-mcm') });
    expect(create.errorCode).toBe('411709');
    await call('POST', '/partners', { body: isoPartner('RS-OWN', 'XX-OWN') });
    const update = await call('PUT', '/partners/RS-OWN', {
      body: isoPartner('RS-OWN', 'UK-OxU'),
    });
    expect(update.errorCode).toBe('411709');
  });

  it('answers 402118 for reading or updating an unknown partner', async () => {
    expect((await call('GET', '/partners/NOPE')).errorCode).toBe('402118');
    const put = await call('PUT', '/partners/NOPE', { body: isoPartner('NOPE', 'NO-PE') });
    expect(put.errorCode).toBe('402118');
  });

  it('answers 401650 for an empty identifier and 401651 for an unknown one on delete', async () => {
    expect((await call('DELETE', '/partners/')).errorCode).toBe('401650');
    expect((await call('DELETE', '/partners/%20')).errorCode).toBe('401650');
    expect((await call('DELETE', '/partners/NOPE')).errorCode).toBe('401651');
  });

  it('creates and reads a lending request', async () => {
    const created = await call('POST', '/partners/RS-BOD/lending-requests', {
      body: { external_id: 'EXT-1', title: 'On Liberty', citation_type: { value: 'BOOK' } },
    });
    expect(created.status).toBe(200);
    const requestId = String(created.json.request_id);
    const read = await call('GET', `/partners/RS-BOD/lending-requests/${requestId}`);
    expect(read.json).toMatchObject({ external_id: 'EXT-1', partner: { value: 'RS-BOD' } });
  });

  it('answers 40166411 for a bad lending request and 40166412 for an unknown one', async () => {
    const noTitle = await call('POST', '/partners/RS-BOD/lending-requests', {
      body: { external_id: 'EXT-2', citation_type: 'BOOK' },
    });
    expect(noTitle.errorCode).toBe('40166411');
    expect(noTitle.text).toContain('title');
    const unknownPartner = await call('GET', '/partners/NOPE/lending-requests/1');
    expect(unknownPartner.errorCode).toBe('40166411');
    const unknownRequest = await call('GET', '/partners/RS-BOD/lending-requests/999');
    expect(unknownRequest.errorCode).toBe('40166412');
  });

  it('answers the key test on GET and POST', async () => {
    expect((await call('GET', '/partners/operation/test')).json.result).toBe('OK');
    expect((await call('POST', '/partners/operation/test')).json.result).toBe('OK');
  });

  it('answers XML when asked', async () => {
    const reply = await call('GET', '/partners/RS-ETH', { accept: 'application/xml' });
    expect(reply.contentType).toContain('application/xml');
    expect(reply.text).toContain('<partner');
    expect(reply.text).toContain('<iso_symbol>SZ-ZuETH</iso_symbol>');
  });
});
