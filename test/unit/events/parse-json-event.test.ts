import { parseJsonEvent } from '../../../src/events/parse-json-event';
import { normalizeEvent } from '../../../src/events/normalize-event';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { InvalidEventError } from '../../../src/events/invalid-event-error';

const TIME = '"time":"2024-11-06T10:15:30Z"';

function parsed(text: string): Record<string, unknown> {
  return parseJsonEvent(text) as Record<string, unknown>;
}

describe('parseJsonEvent', () => {
  it('reads a numeric id as its exact digits: two ids above 2^53 stay two ids', () => {
    const a = normalizeEvent(parseJsonEvent(`{"id":9007199254740993,"action":"a",${TIME}}`));
    const b = normalizeEvent(parseJsonEvent(`{"id":9007199254740992,"action":"a",${TIME}}`));
    expect(a.id).toBe('9007199254740993');
    expect(b.id).toBe('9007199254740992');
    expect(jobIdForEvent(a.id)).not.toBe(jobIdForEvent(b.id));
  });

  it.each([
    ['-0', '-0'],
    ['1.0', '1.0'],
    ['1e3', '1e3'],
    ['12345678901234567890123', '12345678901234567890123'],
  ])('keeps the root id %s as the text sent', (token, id) => {
    expect(parsed(`{ "id" : ${token} , "action":"a",${TIME}}`).id).toBe(id);
  });

  it('finds the root id after nested keys named id and with an escaped key', () => {
    const body = parsed(
      `{"job_instance":{"id":9007199254740993},"x":["id",1],"\\u0069d":9007199254740995,${TIME}}`,
    );
    expect(body.id).toBe('9007199254740995');
    expect(body.job_instance).toEqual({ id: '9007199254740993' });
    expect(body.x).toEqual(['id', 1]);
  });

  it('keeps integers beyond 2^53 anywhere as their digits, and other numbers as numbers', () => {
    const body = parsed(
      `{"id":"1","n":{"big":-90071992547409931,"safe":9007199254740991,"f":100.3,"s":"9007199254740993"}}`,
    );
    expect(body.n).toEqual({
      big: '-90071992547409931',
      safe: 9007199254740991,
      f: 100.3,
      s: '9007199254740993',
    });
  });

  it('is not fooled by quotes, brackets and digits inside strings', () => {
    const body = parsed(`{"a":"\\"id\\": 9007199254740993 {[","id":7,"b":"\\\\"}`);
    expect(body).toEqual({ a: '"id": 9007199254740993 {[', id: '7', b: '\\' });
  });

  it.each([
    '{"id": -}',
    '{"id": 012}',
    '{"id": 1, 90071992547409931: 2}',
    '{"id": 90071992547409931',
  ])('still refuses malformed JSON that quoting a number would repair: %s', (text) => {
    expect(() => parseJsonEvent(text)).toThrow(/^body is not valid JSON/);
  });

  it('refuses nesting deeper than 200 before parsing, and accepts 200', () => {
    const deep = (n: number): string => `{"id":"1","x":${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;
    expect(() => parseJsonEvent(deep(200))).not.toThrow();
    expect(() => parseJsonEvent(deep(201))).toThrow(
      new InvalidEventError('body is nested deeper than 200 levels'),
    );
    // 3,000 deep overflowed the stack in normalize before.
    expect(() => parseJsonEvent(`{"x":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`)).toThrow(
      /nested deeper than 200/,
    );
  });
});

describe('jobIdForEvent', () => {
  it('never collides, also for ids that encodeURIComponent refuses', () => {
    const ids = [
      '1',
      '01',
      '%u',
      'a b',
      '\ud800',
      '\udc00',
      '\ud83d\ude00',
      '%uD800',
      '%F0%9F%98%80',
    ];
    const jobIds = ids.map(jobIdForEvent);
    expect(new Set(jobIds).size).toBe(ids.length);
    expect(jobIdForEvent('\ud800x')).toBe('evt-%uD800x');
    expect(jobIdForEvent('\ud83d\ude00')).toBe('evt-%F0%9F%98%80');
  });
});
