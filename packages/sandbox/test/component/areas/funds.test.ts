import { fundsArea } from '../../../src/areas/funds';
import { useAreaServer } from './area-server';

type Fund = {
  id: string;
  code: string;
  type: { value: string };
  status: { value: string };
  fiscal_period: { value: string };
  allocated_balance?: number;
};

describe('funds area (spec §4.10)', () => {
  const call = useAreaServer(fundsArea);
  const funds = async (query: string) =>
    ((await call('GET', `/acq/funds?limit=100&${query}`)).json.fund ?? []) as Fund[];

  it('lists only active allocated funds of the current fiscal period in the default POL mode', async () => {
    const pol = await funds('');
    expect(pol.length).toBeGreaterThan(0);
    expect(
      pol.every(
        (f) =>
          f.type.value === 'ALLOCATED' &&
          f.status.value === 'ACTIVE' &&
          f.fiscal_period.value === '20242025',
      ),
    ).toBe(true);
    expect((await funds('mode=ALL')).length).toBe(18);
  });

  it('searches only fund_code with POL, all included, refuses other search fields with 401873 and applies the filters', async () => {
    const [first] = await funds('');
    const byCode = await funds(`q=fund_code~${first?.code ?? ''}`);
    expect(byCode.map((f) => f.id)).toEqual([first?.id]);
    const byAll = await funds(`q=all~${first?.code ?? ''}`);
    expect(byAll.map((f) => f.id)).toEqual([first?.id]);
    expect((await funds('q=all~Main ledger')).length).toBe(0);
    expect((await call('GET', '/acq/funds?q=name~books')).errorCode).toBe('401873');
    // spec §4.10 defines status … owner for the list and does not say POL refuses them: they
    // narrow the POL listing (allocated funds active in the current fiscal period).
    const pol = await funds('');
    expect(pol.length).toBeGreaterThan(0);
    expect(await funds('status=ACTIVE')).toEqual(pol);
    expect(await funds('entity_type=ALLOCATED')).toEqual(pol);
    expect(await funds('status=INACTIVE')).toEqual([]);
    expect(await funds('entity_type=LEDGER')).toEqual([]);
    expect(await funds('fiscal_period=20242025')).toEqual(pol);
    expect(await funds('fiscal_period=20232024')).toEqual([]);
  });

  it('filters in ALL mode by status, entity_type, fiscal_period, parent_id, owner, library and q', async () => {
    expect((await funds('mode=ALL&entity_type=LEDGER')).map((f) => f.fiscal_period.value)).toEqual([
      '20232024',
      '20242025',
    ]);
    const [ledger] = await funds('mode=ALL&entity_type=LEDGER&fiscal_period=20242025');
    expect((await funds(`mode=ALL&parent_id=${ledger?.id ?? ''}`)).map((f) => f.code)).toEqual([
      'HUMANITIES',
      'SCIENCES',
    ]);
    expect((await funds('mode=ALL&owner=LAW')).map((f) => f.code)).toEqual([
      'LAW-JRNL',
      'LAW-JRNL',
    ]);
    expect(
      (await funds('mode=ALL&library=LAW&fiscal_period=20242025')).map((f) => f.code),
    ).toContain('LEDGER');
    expect((await funds('mode=ALL&q=name~databases')).map((f) => f.code)).toEqual([
      'SCI-DB',
      'SCI-DB',
    ]);
    expect(
      (await funds('mode=ALL&status=INACTIVE')).every((f) => f.status.value === 'INACTIVE'),
    ).toBe(true);
    expect((await funds('mode=ALL&view=brief'))[0]?.allocated_balance).toBeUndefined();
  });

  it.each([
    ['40166410', 'mode=SOME'],
    ['40166410', 'mode=ALL&status=CLOSED'],
    ['40166410', 'mode=ALL&entity_type=PROJECT'],
    ['40166410', 'view=tiny'],
    ['40166410', 'q=name'],
    ['40166419', 'mode=ALL&fiscal_period=1999'],
    ['40166419', 'mode=ALL&owner=MARS'],
  ])('answers %s for %s', async (errorCode, query) => {
    expect((await call('GET', `/acq/funds?${query}`)).errorCode).toBe(errorCode);
  });

  it('creates, reads, updates, deactivates, activates and deletes a fund', async () => {
    const [summary] = await funds('mode=ALL&entity_type=SUMMARY&fiscal_period=20242025');
    const body = {
      code: 'NEWFUND',
      name: 'New fund',
      type: { value: 'ALLOCATED' },
      parent_fund: { value: summary?.id },
    };
    const created = await call('POST', '/acq/funds?rules_level=parent', { body });
    expect(created.json).toMatchObject({
      code: 'NEWFUND',
      fiscal_period: { value: '20242025' },
      status: { value: 'ACTIVE' },
    });
    const id = String(created.json.id);
    expect((await call('GET', `/acq/funds/${id}?view=brief`)).json).toMatchObject({
      id,
      code: 'NEWFUND',
    });
    expect((await call('PUT', `/acq/funds/${id}`, { body: { name: 'Renamed' } })).json.name).toBe(
      'Renamed',
    );
    expect((await call('POST', `/acq/funds/${id}?op=deactivate`)).json.status).toEqual({
      value: 'INACTIVE',
      desc: 'INACTIVE',
    });
    expect((await call('POST', `/acq/funds/${id}?op=activate`)).json.status).toEqual({
      value: 'ACTIVE',
      desc: 'ACTIVE',
    });
    expect((await call('DELETE', `/acq/funds/${id}`)).status).toBe(204);
    // spec §4.10 lists no 400 for the read: an unknown fund is a 404 (unknown path, §7 rule 7).
    expect((await call('GET', `/acq/funds/${id}`)).status).toBe(404);
  });

  it('refuses bad fund saves and operations with the documented codes', async () => {
    const [ledger] = await funds('mode=ALL&entity_type=LEDGER&fiscal_period=20242025');
    const id = ledger?.id ?? '';
    expect(
      (await call('POST', '/acq/funds', { body: { name: 'x', type: 'LEDGER' } })).errorCode,
    ).toBe('40166404');
    expect(
      (await call('POST', '/acq/funds', { body: { code: 'LEDGER', name: 'x', type: 'LEDGER' } }))
        .errorCode,
    ).toBe('40166404');
    expect(
      (await call('POST', '/acq/funds', { body: { code: 'X', name: 'x', type: 'ALLOCATED' } }))
        .errorCode,
    ).toBe('40166404');
    expect((await call('POST', '/acq/funds?rules_level=both', { body: {} })).errorCode).toBe(
      '40166410',
    );
    expect((await call('POST', '/acq/funds', { body: [1] })).errorCode).toBe('410873');
    expect((await call('PUT', '/acq/funds/1', { body: {} })).errorCode).toBe('40166410');
    expect((await call('PUT', `/acq/funds/${id}`, { body: { type: 'PROJECT' } })).errorCode).toBe(
      '40166404',
    );
    expect((await call('POST', `/acq/funds/${id}?op=close`)).errorCode).toBe('40166410');
    expect((await call('POST', '/acq/funds/1?op=activate')).errorCode).toBe('40166410');
    expect((await call('DELETE', `/acq/funds/${id}`)).errorCode).toBe('410873');
    expect((await call('DELETE', '/acq/funds/1')).errorCode).toBe('40166410');
  });

  it('lists transactions with filter and q; 401873, 40166404, 60106 for bad input', async () => {
    const [fund] = await funds('');
    const path = `/acq/funds/${fund?.id ?? ''}/transactions`;
    const all = await call('GET', `${path}?limit=100`);
    const items = all.json.transaction as {
      transaction_type: { value: string };
      amount: { sum: string };
    }[];
    expect(items[0]?.transaction_type.value).toBe('ALLOCATION');
    const allocations = await call('GET', `${path}?filter=ALLOCATION`);
    expect(allocations.json.total_record_count).toBe(1);
    const byAmount = await call('GET', `${path}?q=amount=${items[0]?.amount.sum ?? ''}`);
    expect(Number(byAmount.json.total_record_count)).toBeGreaterThanOrEqual(1);
    expect((await call('GET', '/acq/funds/1/transactions')).errorCode).toBe('401873');
    expect((await call('GET', `${path}?filter=REFUND`)).errorCode).toBe('40166404');
    expect((await call('GET', `${path}?q=vendor~x`)).errorCode).toBe('60106');
  });

  it('answers XML when asked', async () => {
    const reply = await call('GET', '/acq/funds?limit=1', { accept: 'application/xml' });
    expect(reply.text).toMatch(/<funds total_record_count="\d+"><fund><id>/);
  });
});
