import fc from 'fast-check';
import { CanonicalEvent, safeParseCanonicalEvent } from '../../../src/events/canonical-event';

/** Strings at and around the bounds: 255 bytes, control characters, lone surrogates, 64-char actions. */
const edgy = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'a'.repeat(255),
    'a'.repeat(256),
    'é'.repeat(127),
    'é'.repeat(128),
    '€'.repeat(85),
    '€'.repeat(86),
    'ok\u0000',
    'tab\there',
    'del\u007f',
    'c1\u0085',
    '\ud800',
    'pair\ud83d\ude00',
    'job_end',
    'x'.repeat(64),
    'x'.repeat(65),
    'JOB_END',
  ),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ maxLength: 80 }),
);

/** Mostly a valid value, so that the field under a bound is often the only one at fault. */
const mostly = <T>(valid: T, other: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(valid) }, { weight: 2, arbitrary: other });

const code = fc.oneof(
  fc.constant(undefined),
  fc.constant({}),
  fc.record(
    { value: edgy, desc: fc.option(edgy, { nil: undefined }) },
    { requiredKeys: ['value'] },
  ),
  fc.constant('not an object'),
);

const event = fc.record(
  {
    id: mostly('3219421620000561', fc.oneof(edgy, fc.integer(), fc.constant(undefined))),
    action: mostly('job_end', fc.oneof(edgy, fc.constant(undefined))),
    time: mostly('2026-11-26T10:00:00Z', fc.oneof(edgy, fc.constant(undefined))),
    institution: code,
    event: code,
    meta: fc.oneof(
      fc.constant(undefined),
      fc.constant({ format: 'json', receivedAt: '2026-11-26T10:00:00.000Z', requestId: 'r1' }),
      fc.constant({ format: 'yaml', receivedAt: 'soon', requestId: 1 }),
    ),
    job_instance: fc.constant({ id: '1', name: 'n' }),
  },
  { requiredKeys: [] },
);

describe('safeParseCanonicalEvent', () => {
  it('answers exactly as CanonicalEvent.safeParse: success, data and the issues in order', () => {
    fc.assert(
      fc.property(event, (value) => {
        const quick = safeParseCanonicalEvent(value);
        const whole = CanonicalEvent.safeParse(value);
        expect(quick.success).toBe(whole.success);
        if (quick.success && whole.success) expect(quick.data).toEqual(whole.data);
        else expect(quick.error?.issues).toEqual(whole.error?.issues);
      }),
      { numRuns: 3000, seed: 26 },
    );
  });

  it('refuses each bound the schema sets, naming the rule', () => {
    const base = { id: '1', action: 'job_end', time: 't' };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ...base, id: 'a'.repeat(256) }, 'id', 'longer than 255 bytes'],
      [{ ...base, id: 'a\u0000' }, 'id', 'control character'],
      [{ ...base, action: 'x'.repeat(65) }, 'action', 'at most 64 characters'],
      [{ ...base, institution: { value: '\ud800' } }, 'institution.value', 'lone surrogate'],
      [{ ...base, event: { value: 'é'.repeat(128) } }, 'event.value', 'longer than 255 bytes'],
    ];
    for (const [value, path, why] of cases) {
      const parsed = safeParseCanonicalEvent(value);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.path.join('.')).toBe(path);
      expect(parsed.error?.issues[0]?.message).toContain(why);
    }
  });

  it('takes keys at the bounds', () => {
    const value = {
      id: 'a'.repeat(255),
      action: 'x'.repeat(64),
      time: 't',
      institution: { value: '€'.repeat(85) },
      event: { value: 'pair\ud83d\ude00' },
    };
    expect(safeParseCanonicalEvent(value)).toEqual({ success: true, data: value });
  });
});
