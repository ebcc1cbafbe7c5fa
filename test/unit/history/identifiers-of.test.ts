import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { anyKind } from '../../../src/events/kinds/any-kind';
import { MASK, personalIdsOf, withoutPersonalData } from '../../../src/events/personal-fields';
import { identifiersOf } from '../../../src/history/identifiers-of';
import { fixtureEvent } from '../../helpers/history-events';

/** Keys whose value is an identifier of that column wherever they stand. */
const KEYS: Readonly<Record<string, string>> = anyKind.identifierKeys;

/** What the identifiers are by definition: those left in the event once its personal data is out. */
function leftAfterMasking(event: CanonicalEvent): Record<string, string[]> {
  const found: Record<string, Set<string>> = {};
  for (const bucket of Object.values(KEYS)) found[bucket] = new Set();
  const textOf = (value: unknown): string | undefined =>
    typeof value === 'string'
      ? value.trim() === ''
        ? undefined
        : value
      : typeof value === 'object' && value !== null && !Array.isArray(value)
        ? textOf((value as { value?: unknown }).value)
        : undefined;
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        const bucket = KEYS[key];
        const text = bucket === undefined ? undefined : textOf(child);
        if (bucket !== undefined && text !== undefined) {
          if (!text.includes(MASK)) found[bucket]?.add(text);
        } else walk(child);
      }
    }
  };
  const masked = withoutPersonalData(event);
  walk(masked);
  const instance = textOf((masked.job_instance as { id?: unknown } | undefined)?.id);
  if (instance !== undefined) found.jobInstanceIds?.add(instance);
  return Object.fromEntries(
    Object.entries(found).map(([bucket, set]) => [bucket, [...set].sort()]),
  );
}

const sorted = (ids: ReturnType<typeof identifiersOf>): Record<string, string[]> => ({
  barcodes: [...ids.barcodes].sort(),
  mmsIds: [...ids.mmsIds].sort(),
  loanIds: [...ids.loanIds].sort(),
  requestIds: [...ids.requestIds].sort(),
  jobInstanceIds: [...ids.jobInstanceIds].sort(),
});

describe('identifiersOf', () => {
  const names = readdirSync(path.join(__dirname, '../../fixtures/events'))
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.replace(/\.json$/, ''));

  it.each(names)('finds in %s what is left once its personal data is out', (name) => {
    const event = fixtureEvent(name);
    const ids = identifiersOf(event);
    expect(sorted(ids)).toEqual(leftAfterMasking(event));
    expect(ids.personIds).toEqual(personalIdsOf(event));
  });

  it('leaves out a barcode embedding the patron id, and the patron card', () => {
    const event = {
      ...fixtureEvent('loan-created'),
      item_loan: {
        loan_id: 'L1',
        user_id: 'Pat-77',
        item_barcode: 'X-pat-77-Y',
        user_identifier: { value: '3900777' },
      },
    } as CanonicalEvent;
    const ids = identifiersOf(event);
    expect(ids.barcodes).toEqual([]);
    expect(ids.loanIds).toEqual(['L1']);
    expect(ids.personIds).toContain('Pat-77');
  });
});
