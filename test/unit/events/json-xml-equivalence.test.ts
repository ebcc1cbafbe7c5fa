import { readFileSync } from 'node:fs';
import path from 'node:path';
import { normalizeEvent } from '../../../src/events/normalize-event';
import { parseJsonEvent } from '../../../src/events/parse-json-event';
import { parseXmlEvent } from '../../../src/events/parse-xml-event';
import { toPlatformXml } from '../../../src/platform-xml/to-platform-xml';

const fixture = (name: string): string =>
  readFileSync(path.join(__dirname, '../../fixtures/events', name), 'utf8');

/** The JSON as sent, with the two changes the canonical event makes to it (docs/canonical-event.md). */
function asSent(json: Record<string, unknown>): Record<string, unknown> {
  const withoutNulls = JSON.parse(JSON.stringify(json), (_key, value: unknown) =>
    Array.isArray(value) ? value.filter((item) => item !== null) : value,
  ) as Record<string, unknown>;
  const drop = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(drop);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, child]) => child !== null)
        .map(([key, child]) => [key, drop(child)]),
    );
  };
  const out = drop(withoutNulls) as Record<string, unknown>;
  return { ...out, action: String(out.action).trim().toLowerCase() };
}

const PAIRS = [
  'job-end',
  'job-end-minimal',
  'job-end-odd-values',
  'loan-created',
  'loan-returned',
  'request-created',
  'bib-updated',
  'item-updated',
  'user-updated',
  'user-deleted',
  'notification',
  'notification-request-update',
];

describe.each(PAIRS)('the %s fixture pair', (name) => {
  it('normalizes its JSON and its XML form to deep-equal events', () => {
    const fromJson = normalizeEvent(parseJsonEvent(fixture(`${name}.json`)));
    const fromXml = normalizeEvent(parseXmlEvent(fixture(`${name}.xml`)));
    expect(fromXml).toStrictEqual(fromJson);
    expect(fromJson.action).toBe(fromJson.action.toLowerCase());
  });

  it('reads back the same event after its JSON form is written as platform XML', () => {
    const json = parseJsonEvent(fixture(`${name}.json`)) as Record<string, unknown>;
    const written = toPlatformXml('webhook', json);
    expect(normalizeEvent(parseXmlEvent(written))).toStrictEqual(normalizeEvent(json));
  });
});

// job-end-odd-values sends bare strings at code positions and one element where a list goes.
describe.each(PAIRS.filter((name) => name !== 'job-end-odd-values'))(
  'the canonical event of %s.json',
  (name) => {
    it('is the JSON as sent, action lower-cased and nulls dropped, nothing else', () => {
      const json = JSON.parse(fixture(`${name}.json`)) as Record<string, unknown>;
      expect(normalizeEvent(parseJsonEvent(fixture(`${name}.json`)))).toStrictEqual(asSent(json));
    });
  },
);

describe('the canonical job_end', () => {
  it('keeps the JSON types of known fields and the platform strings of the rest', () => {
    const event = normalizeEvent(parseXmlEvent(fixture('job-end-odd-values.xml')));
    expect(event).toStrictEqual({
      id: '4410022',
      action: 'job_end',
      time: '2024-11-06T10:15:30.000+01:00',
      job_instance: {
        id: '5871043560000777',
        name: 'Import with errors',
        progress: 100.3,
        status: { value: 'COMPLETED_WARNINGS' },
        status_date: '2024-11-06Z',
        counter: [{ type: { value: 'TOTAL_RECORDS_IMPORTED' }, value: '3' }],
        alert: [{ value: 'alert_some_failed' }],
      },
    });
  });

  it('decodes XML character references and CDATA to the same text as JSON', () => {
    const event = normalizeEvent(parseXmlEvent(fixture('loan-created.xml')));
    const loan = event.item_loan as Record<string, unknown>;
    expect(loan.title).toBe('Les Misérables <tome 1> & "autres" — 東京');
    expect(loan.note).toEqual([{ content: 'Überfällig? Nein.' }]);
    expect(event.institution).toEqual({ value: '01SVC_INST', desc: 'Bibliothèque & Co' });
  });
});

describe('kinds in both forms', () => {
  it('brings the BIB MARCXML in anies through as the same string', () => {
    const json = JSON.parse(fixture('bib-updated.json')) as { bib: { anies: string[] } };
    const marc = json.bib.anies[0];
    expect(marc).toContain('\n  <datafield');
    for (const event of [
      normalizeEvent(parseJsonEvent(fixture('bib-updated.json'))),
      normalizeEvent(parseXmlEvent(fixture('bib-updated.xml'))),
    ]) {
      expect((event.bib as { anies: unknown }).anies).toStrictEqual([marc]);
      expect((event.bib as { linked_record_id: unknown }).linked_record_id).toStrictEqual({
        type: 'CZ',
        value: '9912345670001234',
      });
    }
  });

  it('keeps USER with user: {} (the downstream reads user.primary_id from it)', () => {
    const event = normalizeEvent(parseXmlEvent(fixture('user-deleted.xml')));
    expect(event.webhook_user).toStrictEqual({ user: {}, method: 'DELETE', cause: 'PURGE' });
  });

  it('keeps LOAN empty code objects as {} and bare status strings as strings', () => {
    const loan = normalizeEvent(parseXmlEvent(fixture('loan-returned.xml'))).item_loan as Record<
      string,
      unknown
    >;
    expect(loan.return_circ_desk).toStrictEqual({});
    expect(loan.last_renew_status).toStrictEqual({});
    expect(loan.loan_status).toBe('COMPLETE');
    expect(loan.loan_fine).toBe(0.5);
    expect(loan.renewable).toBe(true);
  });

  it('keeps arrays inside notification_data under that key', () => {
    const event = normalizeEvent(parseXmlEvent(fixture('notification.xml')));
    const data = event.notification_data as Record<string, unknown>;
    expect(event.notification).toBeUndefined();
    expect(data.recipients).toStrictEqual(['amara@example.org', 'circulation@example.org']);
    expect(data.item).toHaveLength(2);
    expect(data.message).toBe('Your loans are due soon.\n\nThank you.');
  });
});
