import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { eventKinds } from '../../../src/events/kinds/event-kinds';
import { normalizeEvent } from '../../../src/events/normalize-event';
import { parseJsonEvent } from '../../../src/events/parse-json-event';
import { parseXmlEvent } from '../../../src/events/parse-xml-event';
import {
  isPatronEvent,
  maskPersonalValues,
  personalIdsOf,
  personalValuesOf,
  withoutPersonalData,
} from '../../../src/events/personal-fields';
import { identifiersOf } from '../../../src/history/identifiers-of';

const fixture = (name: string): string =>
  readFileSync(path.join(__dirname, '../../fixtures/events', name), 'utf8');
const eventOf = (name: string): CanonicalEvent =>
  name.endsWith('.xml')
    ? normalizeEvent(parseXmlEvent(fixture(name)))
    : normalizeEvent(parseJsonEvent(fixture(name)));

/** Every fixture of the seven kinds, in both forms. */
const FIXTURES = [
  'job-end',
  'job-end-minimal',
  'loan-created',
  'loan-returned',
  'request-created',
  'bib-updated',
  'item-updated',
  'user-updated',
  'user-deleted',
  'notification',
  'notification-request-update',
].flatMap((name) => [`${name}.json`, `${name}.xml`]);

describe('personal fields of each kind', () => {
  it('every kind file names its personal fields', () => {
    expect(eventKinds).toHaveLength(7);
    for (const kind of eventKinds) expect(Array.isArray(kind.personal)).toBe(true);
  });

  it.each(FIXTURES)('leave no personal value anywhere in the masked %s', (name) => {
    const event = eventOf(name);
    const values = personalValuesOf(event);
    if (/loan|request|user-updated|notification/.test(name)) {
      expect(values.length).toBeGreaterThan(0);
    }
    const json = JSON.stringify(withoutPersonalData(event)).toLowerCase();
    for (const value of values) {
      expect(json).not.toContain(value.toLowerCase());
      expect(json).not.toContain(JSON.stringify(value).slice(1, -1).toLowerCase());
    }
  });

  it('finds the borrower of a loan and masks the id inside its link', () => {
    const event = eventOf('loan-returned.json');
    expect(personalValuesOf(event)).toEqual(['S1004217']);
    const masked = withoutPersonalData(event).item_loan as Record<string, unknown>;
    expect(masked.user_id).toBeUndefined();
    expect(masked.link).toBe(
      'https://svc.example.org/svcws/v1/users/[masked]/loans/23400112350000561',
    );
    // What is not personal stays: the barcode, the loan, the title.
    expect(masked.item_barcode).toBe('39000123456');
    expect(masked.loan_id).toBe('23400112350000561');
    expect(masked.title).toBe('A history of rivers');
  });

  it('finds a user record’s id, names, address, e-mail and card number', () => {
    const values = personalValuesOf(eventOf('user-updated.json'));
    for (const value of [
      'S1004217',
      'Amara',
      'Okafor',
      '12 River Road',
      'Springfield',
      'amara@example.org',
      '2100042',
      'Prefers e-mail.',
    ]) {
      expect(values).toContain(value);
    }
    expect(new Set(values).size).toBe(values.length);
  });

  it('finds each recipient of a notification inside its list', () => {
    const values = personalValuesOf(eventOf('notification.json'));
    expect(values).toEqual(
      expect.arrayContaining(['S1004217', 'amara@example.org', 'circulation@example.org']),
    );
  });

  it('finds the receiving user of a letter inside notification_data, and the printed copy', () => {
    const event = eventOf('notification-request-update.xml');
    const masked = withoutPersonalData(event).notification_data as Record<string, unknown>;
    expect(masked).not.toHaveProperty('receiver');
    expect(masked).not.toHaveProperty('user_for_printing');
    expect(masked.phys_item_display).toMatchObject({ barcode: '39000123458' });
    expect([...personalIdsOf(event)].sort()).toEqual([
      '2100977',
      'S2207761',
      'johanna.virtanen@example.net',
      'jv-0457x',
    ]);
    // A code of the person (their group, a phone's type, their language) is no one's value.
    expect(personalValuesOf(event)).not.toContain('en');
    expect(personalValuesOf(event)).not.toContain('home');
    expect(JSON.stringify(withoutPersonalData(event))).toContain('has been updated');
  });

  it('masks an operator id that is the patron’s id, in any case', () => {
    const event = {
      ...eventOf('request-created.json'),
      operator: { id: 's1004217', note: 'changed by S1004217' },
    } as CanonicalEvent;
    expect(JSON.stringify(withoutPersonalData(event))).not.toMatch(/s1004217/i);
    expect(withoutPersonalData(event).operator).toEqual({
      id: '[masked]',
      note: 'changed by [masked]',
    });
  });

  it('removes personal fields inside lists and user keys at any depth, the rest kept in order', () => {
    const event = {
      id: '1',
      action: 'loan',
      time: '2024-11-07T10:00:00Z',
      item_loan: {
        loan_id: 'L1',
        user_id: 'u-7',
        note: [{ content: 'Asked for u-7', type: 'desk' }, { type: 'empty' }],
        link: '/users/U-7/loans/L1',
      },
      extra: { deeper: [{ patron_id: 'p-3', keep: 'p-3 and more' }] },
    } as CanonicalEvent;
    expect(withoutPersonalData(event)).toEqual({
      id: '1',
      action: 'loan',
      time: '2024-11-07T10:00:00Z',
      item_loan: {
        loan_id: 'L1',
        note: [{ type: 'desk' }, { type: 'empty' }],
        link: '/users/[masked]/loans/L1',
      },
      extra: { deeper: [{ keep: '[masked] and more' }] },
    });
    expect(Object.keys(withoutPersonalData(event).item_loan as object)).toEqual([
      'loan_id',
      'note',
      'link',
    ]);
  });

  it('leaves the original event untouched', () => {
    const event = eventOf('user-updated.json');
    const before = JSON.stringify(event);
    withoutPersonalData(event);
    expect(JSON.stringify(event)).toBe(before);
  });

  it.each([
    ['loan-created.json', true],
    ['request-created.json', true],
    ['user-deleted.json', true],
    ['user-updated.json', true],
    ['notification.json', true],
    ['bib-updated.json', false],
    ['item-updated.json', false],
    ['job-end.json', false],
  ])('tells %s is a patron event: %s', (name, patron) => {
    expect(isPatronEvent(eventOf(name))).toBe(patron);
  });

  it('counts an event of an unknown kind that names a user as a patron event', () => {
    const event = {
      id: '1',
      action: 'fine',
      time: '2024-11-07T10:00:00Z',
      fee: { user_id: 'u-9', amount: 5 },
    } as CanonicalEvent;
    expect(isPatronEvent(event)).toBe(true);
    expect(JSON.stringify(withoutPersonalData(event))).not.toContain('u-9');
  });

  it('names the identifying values only (ids, card numbers, e-mails), not names', () => {
    expect([...personalIdsOf(eventOf('user-updated.json'))].sort()).toEqual([
      '2100042',
      'S1004217',
      'amara@example.org',
    ]);
    expect(personalIdsOf(eventOf('request-created.json'))).toEqual(['S1004217']);
    expect(personalIdsOf(eventOf('bib-updated.json'))).toEqual([]);
  });

  it('masks the event’s personal values inside a destination’s answer', () => {
    expect(
      maskPersonalValues(
        'POST https://circ.example.org/users/s1004217/loans: 404',
        eventOf('loan-returned.json'),
      ),
    ).toBe('POST https://circ.example.org/users/[masked]/loans: 404');
  });

  it('finds and masks a personal value of 64 KB, which no case-insensitive pattern can hold', () => {
    const event = eventOf('request-created.json') as CanonicalEvent & {
      user_request: Record<string, unknown>;
    };
    const long = `x${'y'.repeat(64 * 1024)}`;
    event.user_request.comment = long;
    expect(personalValuesOf(event)).toContain(long);
    const answer = `refused: ${long} for S1004217`;
    expect(maskPersonalValues(answer, event)).toBe('refused: [masked] for [masked]');
    expect(JSON.stringify(withoutPersonalData(event))).not.toContain('yyyy');
    expect(identifiersOf(event).requestIds).toEqual(['81234560000561']);
  });
});
