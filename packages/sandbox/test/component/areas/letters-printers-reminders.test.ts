import { lettersPrintersRemindersArea } from '../../../src/areas/letters-printers-reminders';
import { useAreaServer } from './area-server';

const reminder = (overrides: Record<string, unknown> = {}) => ({
  entity: { entity_type: 'BIB_MMS', entity_id: '9912345673506' },
  type: { value: 'GENERAL' },
  status: { value: 'NEW' },
  reminder_date: '2025-03-14',
  text: 'Check the record',
  ...overrides,
});

describe('letters, printers and reminders area (spec §4.5)', () => {
  const call = useAreaServer(lettersPrintersRemindersArea);

  it('lists letters by type and reads one; 402119 bad type, 40166411 unknown code', async () => {
    expect((await call('GET', '/conf/letters')).json.total_record_count).toBe(4);
    expect((await call('GET', '/conf/letters?type=COMPONENT')).json.total_record_count).toBe(2);
    expect((await call('GET', '/conf/letters?type=MEMO')).errorCode).toBe('402119');
    expect((await call('GET', '/conf/letters/header')).json.type).toEqual({
      value: 'COMPONENT',
      desc: 'COMPONENT',
    });
    expect((await call('GET', '/conf/letters/nope')).errorCode).toBe('40166411');
  });

  it('updates a letter from XML and refuses JSON with 60105', async () => {
    const xml =
      '<letter><code>footer</code><description>New footer</description><enabled>false</enabled></letter>';
    const put = await call('PUT', '/conf/letters/footer', {
      body: xml,
      contentType: 'application/xml',
    });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ description: 'New footer', enabled: false });
    const json = await call('PUT', '/conf/letters/footer', { body: { code: 'footer' } });
    expect(json.errorCode).toBe('60105');
  });

  it('answers 60343 for malformed XML and 40166411 for a code mismatch or unknown letter', async () => {
    const xml = { contentType: 'application/xml' };
    expect(
      (await call('PUT', '/conf/letters/footer', { ...xml, body: '<letter><code>' })).errorCode,
    ).toBe('60343');
    expect((await call('PUT', '/conf/letters/footer', { ...xml, body: '<memo/>' })).errorCode).toBe(
      '60343',
    );
    const mismatch = await call('PUT', '/conf/letters/footer', {
      ...xml,
      body: '<letter><code>header</code></letter>',
    });
    expect(mismatch.errorCode).toBe('40166411');
    expect((await call('PUT', '/conf/letters/nope', { ...xml, body: '<letter/>' })).errorCode).toBe(
      '40166411',
    );
  });

  it('lists printers with filters and reads one', async () => {
    expect((await call('GET', '/conf/printers?limit=100')).json.total_record_count).toBe(8);
    const law = await call('GET', '/conf/printers?library=LAW&name=circulation');
    const [printer] = law.json.printer as { id: string; code: string }[];
    expect(law.json.total_record_count).toBe(1);
    expect(printer?.code).toBe('LAW_CIRC');
    expect((await call('GET', '/conf/printers?code=LAW_CIRC')).json.total_record_count).toBe(1);
    expect((await call('GET', `/conf/printers/${printer?.id ?? ''}`)).json.code).toBe('LAW_CIRC');
  });

  it('answers 402469, 40166410 and 402899 for printers', async () => {
    expect((await call('GET', '/conf/printers?library=MARS')).errorCode).toBe('402469');
    expect((await call('GET', '/conf/printers?printout_queue=maybe')).errorCode).toBe('40166410');
    expect((await call('GET', '/conf/printers/123')).errorCode).toBe('402899');
  });

  it('creates, reads, updates, lists and deletes a reminder', async () => {
    const created = await call('POST', '/conf/reminders', { body: reminder() });
    expect(created.status).toBe(200);
    const id = String(created.json.id);
    expect(created.json.reminder_date).toBe('2025-03-14Z');
    expect((await call('GET', `/conf/reminders/${id}`)).json.text).toBe('Check the record');
    const updated = await call('PUT', `/conf/reminders/${id}`, { body: { status: 'DONE' } });
    expect(updated.json.status).toEqual({ value: 'DONE', desc: 'DONE' });
    const listed = await call(
      'GET',
      '/conf/reminders?from=2025-03-14&status=DONE&entity_id=9912345673506',
    );
    expect((listed.json.reminder as { id: string }[]).map((r) => r.id)).toEqual([id]);
    expect((await call('DELETE', `/conf/reminders/${id}`)).status).toBe(204);
    expect((await call('GET', `/conf/reminders/${id}`)).errorCode).toBe('60177');
    expect((await call('DELETE', `/conf/reminders/${id}`)).errorCode).toBe('60177');
    expect((await call('PUT', `/conf/reminders/${id}`, { body: reminder() })).errorCode).toBe(
      '60177',
    );
  });

  it('lists reminders of today by default, ordered by type, and in the asked order', async () => {
    const today = await call('GET', '/conf/reminders?limit=100');
    const items = today.json.reminder as { reminder_date: string; type: { value: string } }[];
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((r) => r.reminder_date === '2025-03-12Z')).toBe(true);
    const types = items.map((r) => r.type.value);
    expect(types).toEqual([...types].sort());
    const week = await call(
      'GET',
      '/conf/reminders?from=2025-03-10&to=2025-03-20&order_by=reminder_date&direction=desc&limit=100',
    );
    const dates = (week.json.reminder as { reminder_date: string }[]).map((r) => r.reminder_date);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it.each([
    ['type=NOPE'],
    ['status=NOPE'],
    ['from=2025-02-30'],
    ['order_by=text'],
    ['direction=up'],
    ['entity_type=ITEM'],
  ])('refuses the reminder list with %s as 40166410', async (query) => {
    expect((await call('GET', `/conf/reminders?${query}`)).errorCode).toBe('40166410');
  });

  it.each([
    ['60178', reminder({ type: 'NOPE' })],
    ['60179', reminder({ status: 'NOPE' })],
    ['60180', [1, 2]],
    ['60182', reminder({ entity: { entity_id: 'abc' } })],
    ['60183', reminder({ entity: { entity_type: 'ITEM', entity_id: '9912345673506' } })],
    ['60184', reminder({ entity: { entity_type: 'BIB_MMS' } })],
    ['60185', reminder({ reminder_date: '' })],
    ['40166410', reminder({ reminder_date: '14.03.2025' })],
  ])('refuses a reminder create with %s', async (errorCode, body) => {
    expect((await call('POST', '/conf/reminders', { body })).errorCode).toBe(errorCode);
  });

  it('refuses reminder updates with 60178, 60179, 60181', async () => {
    const id = String((await call('POST', '/conf/reminders', { body: reminder() })).json.id);
    expect((await call('PUT', `/conf/reminders/${id}`, { body: { type: 'X' } })).errorCode).toBe(
      '60178',
    );
    expect((await call('PUT', `/conf/reminders/${id}`, { body: { status: 'X' } })).errorCode).toBe(
      '60179',
    );
    expect((await call('PUT', `/conf/reminders/${id}`, { body: { id: '1' } })).errorCode).toBe(
      '60181',
    );
  });

  it('answers XML when asked', async () => {
    const reply = await call('GET', '/conf/letters/header', { accept: 'application/xml' });
    expect(reply.text).toContain('<letter><code>header</code>');
    expect(reply.text).toContain('<type desc="COMPONENT">COMPONENT</type>');
  });
});
