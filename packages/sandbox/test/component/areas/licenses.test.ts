import { MAX_ATTACHMENT_BYTES } from '../../../src/areas/attachments';
import { licensesArea } from '../../../src/areas/licenses';
import { useAreaServer } from './area-server';

const license = (overrides: Record<string, unknown> = {}) => ({
  code: 'LIC-TEST',
  name: 'Test license',
  licensor: { value: 'EBSCO' },
  start_date: '2025-01-01',
  end_date: '2027-12-31',
  location: 'LAW',
  administrator: 'jsmith',
  term: [{ code: 'CONCURUSERS', value: '3' }],
  ...overrides,
});

const codes = (json: Record<string, unknown>) =>
  ((json.license ?? []) as { code: string }[]).map((l) => l.code);

describe('licenses area (spec §4.12)', () => {
  const call = useAreaServer(licensesArea);

  it('lists licenses of type LICENSE without deleted ones by default, and filters', async () => {
    const listed = codes((await call('GET', '/acq/licenses/')).json);
    expect(listed).toEqual(['LIC-NATURE', 'LIC-JSTOR', 'LIC-OED', 'LIC-PQ-DRAFT']);
    expect(codes((await call('GET', '/acq/licenses?status=DELETED')).json)).toEqual(['LIC-OLD']);
    expect(codes((await call('GET', '/acq/licenses?type=NEGOTIATION')).json)).toEqual([
      'NEG-ELSEVIER',
    ]);
    expect(codes((await call('GET', '/acq/licenses?type=ALL&q=name~jstor')).json)).toEqual([
      'LIC-JSTOR',
    ]);
    expect(
      codes(
        (await call('GET', '/acq/licenses?create_date_from=2023-05-01&create_date_to=2023-07-31'))
          .json,
      ),
    ).toEqual(['LIC-OED', 'LIC-PQ-DRAFT']);
  });

  it.each([
    ['40166404', 'status=OPEN'],
    ['40166404', 'type=CONTRACT'],
    ['40166404', 'review_status=MAYBE'],
    ['40166411', 'q=vendor~x'],
    ['40166411', 'create_date_from=2023-02-30'],
    ['40166411', 'expand=terms'],
  ])('refuses the list with %s for %s', async (errorCode, query) => {
    expect((await call('GET', `/acq/licenses?${query}`)).errorCode).toBe(errorCode);
  });

  it('creates, reads (with blank terms), updates and deletes a license', async () => {
    const created = await call('POST', '/acq/licenses', { body: license() });
    expect(created.json).toMatchObject({
      code: 'LIC-TEST',
      type: { value: 'LICENSE' },
      location: { value: 'LAW' },
    });
    const read = await call('GET', '/acq/licenses/LIC-TEST?include_blank_terms=true');
    expect((read.json.term as unknown[]).length).toBe(6);
    const updated = await call('PUT', '/acq/licenses/LIC-TEST', {
      body: { name: 'Renamed', status: 'RETIRED' },
    });
    expect(updated.json).toMatchObject({ name: 'Renamed', status: { value: 'RETIRED' } });
    expect((await call('DELETE', '/acq/licenses/LIC-TEST')).status).toBe(204);
    expect(codes((await call('GET', '/acq/licenses?status=DELETED')).json)).toContain('LIC-TEST');
    expect((await call('DELETE', '/acq/licenses/LIC-TEST')).errorCode).toBe('60200');
    expect((await call('GET', '/acq/licenses/NOPE')).errorCode).toBe('403400');
    expect((await call('GET', '/acq/licenses/LIC-OED?include_blank_terms=maybe')).errorCode).toBe(
      '402119',
    );
  });

  it.each([
    ['60197', { code: '' }],
    ['60186', { name: undefined }],
    ['60187', { type: 'CONTRACT' }],
    ['60188', { status: 'LIVE' }],
    ['60189', { review_status: 'MAYBE' }],
    ['60190', { licensor: 'NOBODY' }],
    ['60191', { start_date: '2025-02-30' }],
    ['60192', { location: 'MARS' }],
    ['60193', { agent: 'NOBODY' }],
    ['60194', { term: [{ code: 'NOPE', value: 'x' }] }],
    ['60195', { term: [{ code: 'WALKIN', value: 'PERHAPS' }] }],
    ['60198', { code: 'LIC-JSTOR' }],
    ['60201', { start_date: '2025-01-01', end_date: '2024-01-01' }],
    ['60220', { administrator: 'stranger' }],
    ['60196', null],
  ])('refuses a license create with %s', async (errorCode, overrides) => {
    const body = overrides === null ? [1] : license({ code: `LIC-${errorCode}`, ...overrides });
    expect((await call('POST', '/acq/licenses', { body })).errorCode).toBe(errorCode);
  });

  it('names the date that is not valid (60191) and refuses update codes (60202, 60220; an unknown license is 60202)', async () => {
    const date = await call('POST', '/acq/licenses', {
      body: license({ code: 'LIC-D', end_date: 'soon' }),
    });
    expect(date.errorCode).toBe('60191');
    expect(date.text).toContain('end_date');
    expect(
      (await call('PUT', '/acq/licenses/LIC-OED', { body: { code: 'OTHER' } })).errorCode,
    ).toBe('60202');
    expect(
      (await call('PUT', '/acq/licenses/LIC-OED', { body: { administrator: 'x' } })).errorCode,
    ).toBe('60220');
    // 403400 is not in the update's row (spec §4.12): an unknown license is "not updated".
    expect((await call('PUT', '/acq/licenses/NOPE', { body: {} })).errorCode).toBe('60202');
    expect((await call('DELETE', '/acq/licenses/NOPE')).errorCode).toBe('60200');
  });

  it('keeps amendments: create, list, read, update, delete; no 60220 there', async () => {
    const path = '/acq/licenses/LIC-NATURE/amendments';
    const created = await call('POST', path, {
      body: license({ code: 'AM-1', administrator: 'stranger' }),
    });
    expect(created.json).toMatchObject({ code: 'AM-1', type: { value: 'ADDENDUM' } });
    expect(codes((await call('GET', path)).json)).toEqual(['AM-1']);
    expect((await call('GET', `${path}/AM-1`)).json.name).toBe('Test license');
    expect((await call('PUT', `${path}/AM-1`, { body: { name: 'Changed' } })).json.name).toBe(
      'Changed',
    );
    expect((await call('DELETE', '/acq/licenses/LIC-NATURE')).errorCode).toBe('60200');
    expect((await call('POST', path, { body: license({ code: 'AM-1' }) })).errorCode).toBe('60198');
    expect((await call('PUT', `${path}/AM-1`, { body: { code: 'AM-2' } })).errorCode).toBe('60202');
    expect((await call('POST', path, { body: [1] })).errorCode).toBe('60196');
    expect((await call('DELETE', `${path}/AM-1`)).status).toBe(204);
    expect((await call('GET', `${path}/AM-1`)).errorCode).toBe('403400');
    expect((await call('GET', '/acq/licenses/NOPE/amendments')).errorCode).toBe('403400');
  });

  it('adds, reads, updates and deletes attachments with 60345, 60346 (updates), 60321, 60322, 60100', async () => {
    const path = '/acq/licenses/LIC-JSTOR/attachments';
    const created = await call('POST', path, {
      body: { file_name: 'license.pdf', content: 'JVBERi0=' },
    });
    const id = String(created.json.id);
    expect((await call('GET', path)).json.total_record_count).toBe(1);
    expect(
      (await call('GET', '/acq/licenses/LIC-JSTOR?expand=attachments')).json.attachment,
    ).toHaveLength(1);
    const renamed = await call('PUT', `${path}/${id}`, { body: { file_name: 'signed.pdf' } });
    expect(renamed.json).toMatchObject({ file_name: 'signed.pdf', content: 'JVBERi0=' });
    const big = Buffer.alloc(MAX_ATTACHMENT_BYTES + 1).toString('base64');
    expect((await call('PUT', `${path}/${id}`, { body: { content: big } })).errorCode).toBe(
      '60345',
    );
    expect((await call('PUT', `${path}/${id}`, { body: { content: '%%%%' } })).errorCode).toBe(
      '60322',
    );
    const created2 = await call('POST', path, {
      body: { type: 'note', content: undefined, file_name: undefined },
    });
    expect(created2.errorCode).toBe('60322');
    expect((await call('POST', path, { body: { content: 'AAAA' } })).errorCode).toBe('60322');
    expect((await call('GET', `${path}/abc`)).errorCode).toBe('60100');
    expect((await call('DELETE', `${path}/${id}`)).status).toBe(204);
    expect((await call('DELETE', `${path}/${id}`)).errorCode).toBe('60321');
  });

  it('answers XML when asked', async () => {
    const reply = await call('GET', '/acq/licenses/LIC-OED', { accept: 'application/xml' });
    expect(reply.text).toContain('<license link=');
    expect(reply.text).toContain('<terms><term><code desc="Walk-in user">WALKIN</code>');
  });
});
