import { confTablesArea } from '../../../src/areas/conf-tables';
import { useAreaServer } from './area-server';

describe('configuration tables area (spec §4.1)', () => {
  const call = useAreaServer(confTablesArea);

  const rowsOf = (json: Record<string, unknown>) =>
    json.row as { code: string; default: boolean }[];

  it('lists code tables without the hidden ones, and refuses an unknown scope with 40166411', async () => {
    const list = await call('GET', '/conf/code-tables');
    const names = (list.json.code_table as { name: string }[]).map((table) => table.name);
    expect(names).toEqual(
      expect.arrayContaining(['InvoiceStatus', 'ReminderTypes', 'systemJobsGroups']),
    );
    expect(names).not.toContain('InternalRecordLocks');
    expect((await call('GET', '/conf/code-tables?scope=NOWHERE')).errorCode).toBe('40166411');
  });

  it('reads a code table with its rows, lang and library scope', async () => {
    const reply = await call('GET', '/conf/code-tables/InvoiceStatus?lang=de&scope=LAW');
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ name: 'InvoiceStatus', language: { value: 'de' } });
    expect(reply.json.scope).toMatchObject({ library_id: { value: 'LAW' } });
    expect(rowsOf(reply.json).map((row) => row.code)).toContain('Waiting_For_Payment');
  });

  it('answers 40166411 for a bad lang or scope and 402119 for an unknown table', async () => {
    expect((await call('GET', '/conf/code-tables/InvoiceStatus?lang=english')).errorCode).toBe(
      '40166411',
    );
    expect((await call('GET', '/conf/code-tables/InvoiceStatus?scope=X')).errorCode).toBe(
      '40166411',
    );
    expect((await call('GET', '/conf/code-tables/NoSuchTable')).errorCode).toBe('402119');
  });

  it('updates a code table and does not restore a deleted row', async () => {
    const rows = [
      { code: 'GENERAL', description: 'General reminder', default: true, enabled: true },
      { code: 'REVIEW', description: 'Review', default: false, enabled: true },
    ];
    const put = await call('PUT', '/conf/code-tables/ReminderTypes', {
      body: { name: 'ReminderTypes', row: rows },
    });
    expect(put.status).toBe(200);
    expect(rowsOf(put.json).map((row) => row.code)).toEqual(['GENERAL', 'REVIEW']);
    const again = await call('PUT', '/conf/code-tables/ReminderTypes', {
      body: { name: 'ReminderTypes', row: [...rows, { code: 'CATALOGING', description: 'back' }] },
    });
    expect(rowsOf(again.json).map((row) => row.code)).toEqual(['GENERAL', 'REVIEW']);
  });

  it.each([
    ['90100', 'InvoiceStatus', { row: [] }],
    ['90101', 'NoSuchTable', { name: 'NoSuchTable', row: [] }],
    ['90102', 'InternalRecordLocks', { name: 'InternalRecordLocks', row: [] }],
    [
      '90121',
      'InvoiceStatus',
      { name: 'InvoiceStatus', scope: { library_id: { value: 'MARS' } }, row: [] },
    ],
    [
      '90122',
      'InvoiceStatus',
      {
        name: 'InvoiceStatus',
        row: [
          { code: 'InReview', default: true },
          { code: 'Closed', default: true },
        ],
      },
    ],
    ['90123', 'systemJobsGroups', { name: 'systemJobsGroups', row: [] }],
  ])('answers %s on a code-table update that breaks its rule', async (errorCode, name, body) => {
    const reply = await call('PUT', `/conf/code-tables/${name}`, { body });
    expect(reply.status).toBe(400);
    expect(reply.errorCode).toBe(errorCode);
  });

  it('lists, reads and updates mapping tables', async () => {
    const list = await call('GET', '/conf/mapping-tables');
    expect(list.json.total_record_count).toBe(2);
    const read = await call('GET', '/conf/mapping-tables/VendorErpMapping?scope=MAIN');
    expect(read.json.row).toHaveLength(2);
    const put = await call('PUT', '/conf/mapping-tables/VendorErpMapping', {
      body: { name: 'VendorErpMapping', row: [{ column0: 'GOBI', column1: 'ERP-7' }] },
    });
    expect(put.json.row).toEqual([{ column0: 'GOBI', column1: 'ERP-7' }]);
    expect((await call('GET', '/conf/mapping-tables?scope=X')).errorCode).toBe('40166411');
    expect((await call('GET', '/conf/mapping-tables/VendorErpMapping?scope=X')).errorCode).toBe(
      '40166411',
    );
  });

  it.each([
    ['90126', 'VendorErpMapping', { row: [] }],
    ['90101', 'Nope', { name: 'Nope' }],
    ['90102', 'InternalQueueMapping', { name: 'InternalQueueMapping' }],
    ['90127', 'VendorErpMapping', { name: 'VendorErpMapping', scope: { institution_id: 'OTHER' } }],
    ['90125', 'SystemLocaleMapping', { name: 'SystemLocaleMapping' }],
  ])('answers %s on a mapping-table update that breaks its rule', async (errorCode, name, body) => {
    const reply = await call('PUT', `/conf/mapping-tables/${name}`, { body });
    expect(reply.errorCode).toBe(errorCode);
  });

  it('adds the ingest forms to the general configuration only with expand=ingest_form', async () => {
    const plain = await call('GET', '/conf/general');
    expect(plain.json.institution).toEqual({ value: '01UNI_INST', desc: 'University Library' });
    expect(plain.json.ingest_form).toBeUndefined();
    const expanded = await call('GET', '/conf/general?expand=ingest_form');
    expect(expanded.json.ingest_form).toHaveLength(2);
    expect((await call('GET', '/conf/general?expand=everything')).errorCode).toBe('402119');
  });

  it('answers the institution open hours, for the default scope and a library', async () => {
    const reply = await call('GET', '/conf/open-hours');
    expect((reply.json.open_hour as unknown[]).length).toBeGreaterThanOrEqual(6);
    expect((await call('GET', '/conf/open-hours?scope=SCI')).status).toBe(200);
    // spec §4.1 lists no code: §7 rule 2's invalid parameter value.
    expect((await call('GET', '/conf/open-hours?scope=MARS')).errorCode).toBe('40166410');
  });

  it('filters departments by type and drops operators in the brief view', async () => {
    const digi = await call('GET', '/conf/departments?type=DIGI&view=brief');
    const departments = digi.json.department as Record<string, unknown>[];
    expect(departments).toHaveLength(2);
    expect(departments.every((d) => d.operator === undefined)).toBe(true);
    const full = await call('GET', '/conf/departments');
    expect(full.json.total_record_count).toBe(4);
    expect((full.json.department as Record<string, unknown>[])[0]?.operator).toBeDefined();
    expect((await call('GET', '/conf/departments?type=PRINT')).errorCode).toBe('402119');
  });

  it('answers XML when asked', async () => {
    const reply = await call('GET', '/conf/code-tables/LicenseReviewStatuses', {
      accept: 'application/xml',
    });
    expect(reply.text).toContain('<code_table>');
    expect(reply.text).toContain('<rows><row><code>INREVIEW</code>');
  });
});
