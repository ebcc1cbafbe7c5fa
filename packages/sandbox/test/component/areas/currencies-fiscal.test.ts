import { currenciesFiscalArea } from '../../../src/areas/currencies-fiscal';
import { useAreaServer } from './area-server';

describe('currencies and fiscal periods area (spec §4.9)', () => {
  const call = useAreaServer(currenciesFiscalArea);

  it('lists all currencies, pages them, and lists the subset', async () => {
    const all = await call('GET', '/acq/currencies?limit=100');
    expect(all.json.total_record_count).toBe(7);
    expect((await call('GET', '/acq/currencies?limit=2&offset=6')).json.currency).toHaveLength(1);
    const subset = await call('GET', '/acq/currencies?mode=Subset');
    expect(
      (subset.json.currency as { currency: { value: string } }[]).map((c) => c.currency.value),
    ).toEqual(['USD', 'EUR', 'GBP']);
  });

  it('answers one exchange rate in Ratio mode, the same for the same day', async () => {
    const query =
      '/acq/currencies?mode=Ratio&source_currency=EUR&target_currency=USD&exchange_date=20250110';
    const first = await call('GET', query);
    expect(first.json).toMatchObject({
      source_currency: { value: 'EUR' },
      exchange_date: '2025-01-10Z',
    });
    expect(Number(first.json.ratio)).toBeGreaterThan(1);
    expect((await call('GET', query)).json.ratio).toBe(first.json.ratio);
    const defaults = await call('GET', '/acq/currencies?mode=Ratio&exchange_date=20250110');
    expect(defaults.json.ratio).toBe(1);
  });

  it.each([
    ['401666', 'mode=Everything'],
    ['401666', 'mode=Ratio'],
    ['401666', 'mode=Ratio&exchange_date=2025-01-10'],
    ['40166410', 'mode=Ratio&exchange_date=20250110&source_currency=XXX'],
    ['60348', 'mode=Ratio&exchange_date=20100101'],
    ['60348', 'mode=Ratio&exchange_date=20300101'],
  ])('answers %s for %s', async (errorCode, query) => {
    expect((await call('GET', `/acq/currencies?${query}`)).errorCode).toBe(errorCode);
  });

  it('lists all fiscal periods and the current one', async () => {
    const all = await call('GET', '/acq/fiscal-periods');
    expect(all.json.total_record_count).toBe(4);
    const current = await call('GET', '/acq/fiscal-periods?mode=Current');
    expect(current.json.fiscal_period).toEqual([
      {
        id: '20242025',
        description: 'FY 2024-2025',
        start_date: '2024-07-01Z',
        end_date: '2025-06-30Z',
        current: true,
      },
    ]);
    expect((await call('GET', '/acq/fiscal-periods?mode=Next')).errorCode).toBe('401666');
  });

  it('answers XML when asked', async () => {
    const reply = await call('GET', '/acq/fiscal-periods?mode=Current', {
      accept: 'application/xml',
    });
    expect(reply.text).toContain(
      '<fiscal_periods total_record_count="1"><fiscal_period><id>20242025</id>',
    );
  });
});
