import { orgUnitsArea } from '../../../src/areas/org-units';
import { useAreaServer } from './area-server';

describe('organization units area (spec §4.2)', () => {
  const call = useAreaServer(orgUnitsArea);

  it('lists libraries and reads one; an unknown library is 402119', async () => {
    const list = await call('GET', '/conf/libraries');
    expect(list.json.total_record_count).toBe(4);
    const law = await call('GET', '/conf/libraries/LAW');
    expect(law.json).toMatchObject({ code: 'LAW', name: 'Law Library' });
    expect((await call('GET', '/conf/libraries/MARS')).errorCode).toBe('402119');
  });

  it('pages circulation desks with and without the trailing slash', async () => {
    const all = await call('GET', '/conf/libraries/MAIN/circ-desks/');
    const total = Number(all.json.total_record_count);
    expect(total).toBeGreaterThanOrEqual(2);
    const page = await call('GET', '/conf/libraries/MAIN/circ-desks?limit=1&offset=1');
    expect(page.json.circ_desk).toHaveLength(1);
    expect(page.json.total_record_count).toBe(total);
    expect((await call('GET', '/conf/libraries/MAIN/circ-desks/?limit=101')).errorCode).toBe(
      '40166410',
    );
  });

  it('reads a circulation desk; an unknown desk is 401664', async () => {
    expect((await call('GET', '/conf/libraries/SCI/circ-desks/SCI_DESK1')).json.primary).toBe(true);
    expect((await call('GET', '/conf/libraries/SCI/circ-desks/NOPE')).errorCode).toBe('401664');
  });

  it('lists, reads and updates a location', async () => {
    const list = await call('GET', '/conf/libraries/MUSIC/locations');
    expect(Number(list.json.total_record_count)).toBeGreaterThanOrEqual(3);
    const read = await call('GET', '/conf/libraries/MUSIC/locations/MUSIC_STACKS');
    expect(read.json.name).toBe('Stacks');
    expect((await call('GET', '/conf/libraries/MUSIC/locations/NOPE')).errorCode).toBe('402119');
    const put = await call('PUT', '/conf/libraries/MUSIC/locations/MUSIC_STACKS', {
      body: { code: 'MUSIC_STACKS', name: 'Open stacks', type: { value: 'CLOSED' } },
    });
    expect(put.json).toMatchObject({ name: 'Open stacks', type: { value: 'CLOSED' } });
    const again = await call('GET', '/conf/libraries/MUSIC/locations/MUSIC_STACKS');
    expect(again.json.name).toBe('Open stacks');
  });

  it.each([
    ['401664', 'MARS', 'MAIN_STACKS', {}],
    ['401664', 'MAIN', 'NOPE', {}],
    ['401664', 'MAIN', 'MAIN_STACKS', { code: 'OTHER' }],
    ['60297', 'MAIN', 'MAIN_STACKS', { type: 'FLOATING' }],
    ['60298', 'MAIN', 'MAIN_STACKS', { remote_storage: { value: 'MOON' } }],
    ['60299', 'MAIN', 'MAIN_STACKS', { fulfillment_unit: 'NOPE' }],
    ['60300', 'MAIN', 'MAIN_STACKS', { accession_placement: 'NOPE' }],
    ['60301', 'MAIN', 'MAIN_STACKS', { call_number_type: '9' }],
    ['60302', 'MAIN', 'MAIN_STACKS', { name: '' }],
  ])('answers %s for a location update (%s/%s)', async (errorCode, library, location, body) => {
    const reply = await call('PUT', `/conf/libraries/${library}/locations/${location}`, { body });
    expect(reply.errorCode).toBe(errorCode);
  });

  it('answers open hours from today for one week by default', async () => {
    const reply = await call('GET', '/conf/libraries/MAIN/open-hours');
    const days = reply.json.day as { date: string; day_of_week: { value: string } }[];
    expect(days).toHaveLength(8);
    expect(days[0]).toMatchObject({ date: '2025-03-12Z', day_of_week: { value: 'WEDNESDAY' } });
    expect(days[7]?.date).toBe('2025-03-19Z');
  });

  it.each([
    ['from=2025-04-01&to=2025-05-01', 31],
    ['from=2025-05-01&to=2025-05-31', 31],
    ['from=2026-02-01&to=2026-03-03', 31],
    ['from=2024-03-12&to=2024-03-12', 1],
    ['from=2028-03-05&to=2028-03-12', 8],
  ])(
    'answers open hours %s: at most 31 days counting both ends, inside the window (%i days)',
    async (query, days) => {
      const reply = await call('GET', `/conf/libraries/LAW/open-hours?${query}`);
      expect(reply.json.day).toHaveLength(days);
    },
  );

  it.each([
    ['from=2025-13-01'],
    ['from=2025-04-01&to=2025-03-01'],
    ['from=2025-04-01&to=2025-05-02'],
    ['from=2025-05-01&to=2025-06-01'],
    ['from=2024-03-11&to=2024-03-12'],
    ['from=2028-03-05&to=2028-03-13'],
    ['from=2028-03-10&to=2028-03-20'],
  ])('refuses open hours %s with 402119', async (query) => {
    expect((await call('GET', `/conf/libraries/LAW/open-hours?${query}`)).errorCode).toBe('402119');
  });

  it('answers XML when asked', async () => {
    const reply = await call('GET', '/conf/libraries/MAIN', { accept: 'application/xml' });
    expect(reply.text).toContain('<library link=');
    expect(reply.text).toContain('<code>MAIN</code>');
  });
});
