import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { normalizeEvent } from '../../../src/events/normalize-event';
import { parseJsonEvent } from '../../../src/events/parse-json-event';
import { parseXmlEvent } from '../../../src/events/parse-xml-event';
import { isRecord } from '../../../src/is-record';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { matchesRoute } from '../../../src/routes/match-route';
import { EVENT_PATH } from '../../../src/routes/match-where';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'events');
const META = { receivedAt: '2025-03-01T10:00:00.000Z', requestId: 'fixture' };

/** Every payload of test/fixtures/events (every kind, JSON and XML) as the listener stores it. */
const EVENTS: [string, CanonicalEvent][] = readdirSync(FIXTURES)
  .sort()
  .map((file) => {
    const text = readFileSync(join(FIXTURES, file), 'utf8');
    return file.endsWith('.xml')
      ? [file, normalizeEvent(parseXmlEvent(text), { ...META, format: 'xml' })]
      : [file, normalizeEvent(parseJsonEvent(text), { ...META, format: 'json' })];
  });

/** Each path of `root` (lists walked, no index) that reaches a value object with a value. */
function valueObjectPaths(root: unknown, path: string[] = []): [string, string][] {
  if (Array.isArray(root)) return root.flatMap((one) => valueObjectPaths(one, path));
  if (!isRecord(root)) return [];
  const here: [string, string][] =
    path.length > 0 && (typeof root.value === 'string' || typeof root.value === 'number')
      ? [[path.join('.'), String(root.value)]]
      : [];
  const below = Object.entries(root).flatMap(([key, value]) =>
    valueObjectPaths(value, [...path, key]),
  );
  return [...here, ...below].filter(([one, value]) => EVENT_PATH.test(one) && value !== '');
}

function holds(where: Record<string, unknown>, event: CanonicalEvent): boolean {
  const file = JSON.stringify({
    routes: [{ name: 'r', match: { where }, to: { file: { dir: '/tmp/unused' } } }],
  });
  const route = parseRoutesFile(file, {}).routes[0];
  if (route === undefined) throw new Error('no route');
  return matchesRoute(route.match, event);
}

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('match.where reads the platform value objects by their value', () => {
  it('finds value objects in the fixtures of every kind', () => {
    const kinds = new Set(
      EVENTS.filter(([, event]) => valueObjectPaths(event).length > 0).map(([, e]) => e.action),
    );
    expect([...kinds].sort()).toEqual(
      ['bib', 'item', 'job_end', 'loan', 'notification', 'request', 'user'].sort(),
    );
  });

  it.each(EVENTS)(
    'exists, in, a list, prefix and regex hold on the value objects of %s',
    (_file, event) => {
      for (const [path, value] of valueObjectPaths(event)) {
        const seen = {
          exists: holds({ [path]: { exists: true } }, event),
          notExists: holds({ [path]: { exists: false } }, event),
          list: holds({ [path]: [value] }, event),
          in: holds({ [path]: { in: ['none of these', value] } }, event),
          prefix: holds({ [path]: { prefix: value.slice(0, 1) } }, event),
          regex: holds({ [path]: { regex: `^${escaped(value)}$` } }, event),
          other: holds({ [path]: ['a value no fixture has'] }, event),
        };
        expect([path, seen]).toEqual([
          path,
          {
            exists: true,
            notExists: false,
            list: true,
            in: true,
            prefix: true,
            regex: true,
            other: false,
          },
        ]);
      }
    },
  );

  const loan = (requestId: unknown): CanonicalEvent => {
    const event = EVENTS.find(([file]) => file === 'loan-created.json')?.[1];
    if (event === undefined || !isRecord(event.item_loan)) throw new Error('no loan fixture');
    return { ...event, item_loan: { ...event.item_loan, request_id: requestId } };
  };

  it('holds `request_id: { exists: true }` for a LOAN whose request_id is { value, link }', () => {
    const linked = loan({
      value: '24061234560000561',
      link: 'https://svc.example.org/svcws/v1/users/u-1/requests/24061234560000561',
    });
    expect(holds({ 'item_loan.request_id': { exists: true } }, linked)).toBe(true);
    expect(holds({ 'item_loan.request_id': { prefix: '2406' } }, linked)).toBe(true);
    expect(holds({ 'item_loan.request_id': ['24061234560000561'] }, linked)).toBe(true);
  });

  it.each([
    ['an empty value', { value: '' }],
    ['a null value', { value: null }],
    ['an empty value with a description', { value: '', desc: 'None' }],
  ])('counts %s as no value', (_case, requestId) => {
    const event = loan(requestId);
    expect(holds({ 'item_loan.request_id': { exists: true } }, event)).toBe(false);
    expect(holds({ 'item_loan.request_id': { exists: false } }, event)).toBe(true);
    expect(holds({ 'item_loan.request_id': { regex: '^$' } }, event)).toBe(false);
  });

  it('reads loan-returned (request_id { "value": null }) as having no request', () => {
    const returned = EVENTS.find(([file]) => file === 'loan-returned.json')?.[1];
    if (returned === undefined) throw new Error('no loan-returned fixture');
    expect(holds({ 'item_loan.request_id': { exists: false } }, returned)).toBe(true);
  });
});
