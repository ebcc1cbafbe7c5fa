import { refusedForData } from '../../../src/history/refused-for-data';

const withCode = (code: string): Error => Object.assign(new Error('refused'), { code });

describe('what the history writer takes for a refusal of the data', () => {
  it.each(['22P02', '22003', '54000', '23514', '23502'])('%s: the record is at fault', (code) => {
    expect(refusedForData(withCode(code))).toBe(true);
  });

  it.each(['23505', '57P01', '08006', '40001', 'ECONNREFUSED'])(
    '%s: the database is, the whole batch waits',
    (code) => {
      expect(refusedForData(withCode(code))).toBe(false);
    },
  );

  it('takes an error without a SQLSTATE for the database', () => {
    expect(refusedForData(new Error('Connection terminated unexpectedly'))).toBe(false);
  });
});
