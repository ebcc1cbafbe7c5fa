import { readFileSync } from 'node:fs';
import path from 'node:path';
import { normalizeEvent } from '../../../src/events/normalize-event';
import { parseJsonEvent } from '../../../src/events/parse-json-event';
import { parseXmlEvent } from '../../../src/events/parse-xml-event';
import { toPlatformXml } from '../../../src/platform-xml/to-platform-xml';

const fixture = (name: string): string =>
  readFileSync(path.join(__dirname, '../../fixtures/events', name), 'utf8');

describe.each(['job-end', 'job-end-minimal', 'job-end-odd-values', 'loan-created'])(
  'the %s fixture pair',
  (name) => {
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
