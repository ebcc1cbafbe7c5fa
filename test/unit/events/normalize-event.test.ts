import { normalizeEvent } from '../../../src/events/normalize-event';
import { InvalidEventError } from '../../../src/events/invalid-event-error';

const base = { id: '1', action: 'JOB_END', time: '2024-11-06T10:15:30Z' };

function errorOf(body: unknown): InvalidEventError {
  try {
    normalizeEvent(body);
  } catch (error) {
    if (error instanceof InvalidEventError) return error;
    throw error;
  }
  throw new Error('normalizeEvent accepted the body');
}

describe('normalizeEvent', () => {
  it('lower-cases the action, as the platform sends both JOB_END and job_end', () => {
    expect(normalizeEvent(base).action).toBe('job_end');
    expect(normalizeEvent({ ...base, action: 'job_end' }).action).toBe('job_end');
  });

  it('trims the action before lower-casing it', () => {
    expect(normalizeEvent({ ...base, action: ' JOB_END \n' }).action).toBe('job_end');
  });

  it('rejects an action that is blank, naming it missing', () => {
    const error = errorOf({ ...base, action: '   ' });
    expect(error.field).toBe('action');
    expect(error.message).toBe('action is missing');
  });

  it.each(['id', 'action', 'time'])('rejects a body without %s, naming it', (field) => {
    const body = Object.fromEntries(Object.entries({ ...base }).filter(([key]) => key !== field));
    const error = errorOf(body);
    expect(error.field).toBe(field);
    expect(error.message).toBe(`${field} is missing`);
  });

  // A time that is not ISO 8601 was refused, and the event lost.
  it.each(['06/11/2024 10:15', '2024-11-06T10:15:30', ' 2024-11-06T10:15:30Z'])(
    'keeps a time that is not ISO 8601 UTC as sent (%p)',
    (time) => {
      expect(normalizeEvent({ ...base, time }).time).toBe(time);
    },
  );

  it('rejects a time that is not a string, naming the field', () => {
    expect(errorOf({ ...base, time: 1730888130 }).message).toMatch(/^time is invalid/);
    expect(errorOf({ ...base, time: { value: 'x' } }).field).toBe('time');
    expect(errorOf({ ...base, time: ' ' }).message).toBe('time is missing');
  });

  it.each([[[]], ['text'], [42], [null]])('rejects a body that is not an object (%p)', (body) => {
    expect(errorOf(body).message).toBe('body must be an object with id, action and time');
  });

  // Empty strings and emptied objects were dropped too.
  it('drops null values at every depth and keeps empty strings, objects and lists', () => {
    const event = normalizeEvent({
      ...base,
      job_instance: {
        id: '9',
        name: 'x',
        external_id: null,
        note: '',
        job_info: { link: null },
        counter: [null],
        alert: [],
      },
    });
    expect(event.job_instance).toStrictEqual({
      id: '9',
      name: 'x',
      note: '',
      job_info: {},
      counter: [],
      alert: [],
    });
  });

  it('keeps an empty subject object (USER with user: {})', () => {
    const event = normalizeEvent({ ...base, action: 'USER', webhook_user: { user: {} } });
    expect(event.webhook_user).toStrictEqual({ user: {} });
  });

  it('keeps a string under type or status as sent where no kind names a code field', () => {
    const event = normalizeEvent({
      ...base,
      action: 'BIB',
      bib: { linked_record_id: { type: 'CZ', value: '991' }, status: 'ACTIVE' },
      unknown_subject: { type: 'X', status: 'Y', counter: { type: 'Z' } },
    });
    expect(event.bib).toStrictEqual({
      linked_record_id: { type: 'CZ', value: '991' },
      status: 'ACTIVE',
    });
    expect(event.unknown_subject).toStrictEqual({ type: 'X', status: 'Y', counter: { type: 'Z' } });
  });

  it('keeps a bare code string of user_identifier as sent, and makes the user status a code', () => {
    const event = normalizeEvent({
      ...base,
      action: 'USER',
      webhook_user: {
        user: {
          status: 'ACTIVE',
          user_identifier: { id_type: 'BARCODE', value: '1', status: 'ACTIVE' },
        },
      },
    });
    expect(event.webhook_user).toStrictEqual({
      user: {
        status: { value: 'ACTIVE' },
        user_identifier: [{ id_type: { value: 'BARCODE' }, value: '1', status: 'ACTIVE' }],
      },
    });
  });

  it('turns a numeric job_instance.id into its string', () => {
    const event = normalizeEvent({ ...base, job_instance: { id: 5871043560000561, name: 'x' } });
    expect(event.job_instance).toStrictEqual({ id: '5871043560000561', name: 'x' });
  });

  it('refuses a value nested deeper than the limit without overflowing the stack', () => {
    let deep: unknown = {};
    for (let i = 0; i < 5000; i += 1) deep = { a: deep };
    expect(errorOf({ ...base, x: deep }).message).toBe('body is nested deeper than 200 levels');
    let list: unknown = [];
    for (let i = 0; i < 5000; i += 1) list = [list];
    expect(errorOf({ ...base, x: list }).message).toBe('body is nested deeper than 200 levels');
  });

  it('accepts nesting up to the limit', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 199; i += 1) deep = { a: deep };
    expect(() => normalizeEvent({ ...base, x: deep })).not.toThrow();
  });

  it('turns institution and event strings into code values', () => {
    const event = normalizeEvent({
      ...base,
      institution: '01INST',
      event: { value: 'X', desc: 'Y' },
    });
    expect(event.institution).toEqual({ value: '01INST' });
    expect(event.event).toEqual({ value: 'X', desc: 'Y' });
  });

  it('makes a one-element list an array and keeps counter values as strings', () => {
    const event = normalizeEvent({
      ...base,
      job_instance: { id: '9', name: 'x', counter: { type: 'TOTAL', value: 25 } },
    });
    expect(event.job_instance).toEqual({
      id: '9',
      name: 'x',
      counter: [{ type: { value: 'TOTAL' }, value: '25' }],
    });
  });

  it('keeps unknown actions and unknown keys as they are', () => {
    const event = normalizeEvent({
      ...base,
      action: 'BIB_UPDATED',
      bib: { mms_id: '99', extra: true },
    });
    expect(event.action).toBe('bib_updated');
    expect(event.bib).toEqual({ mms_id: '99', extra: true });
  });

  it('never copies __proto__ keys into the event', () => {
    const body = JSON.parse(
      '{"id":"1","action":"a","time":"2024-11-06T10:15:30Z","x":{"__proto__":{"polluted":true}}}',
    ) as unknown;
    const event = normalizeEvent(body);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // The object that held only __proto__ is kept, empty (objects are never removed).
    expect(event.x).toStrictEqual({});
    expect(Object.getPrototypeOf(event.x)).toBe(Object.prototype);
  });

  it('accepts a numeric id from a lenient writer as its string', () => {
    expect(normalizeEvent({ ...base, id: 3219421620 }).id).toBe('3219421620');
  });

  it('refuses a numeric id a double does not hold exactly, rather than guess its digits', () => {
    expect(errorOf({ ...base, id: 2 ** 53 + 2 }).message).toMatch(/^id is invalid/);
  });

  it('replaces any meta the body carries with the transport facts given', () => {
    const meta = {
      format: 'json' as const,
      receivedAt: '2024-11-06T10:15:31.000Z',
      requestId: 'r1',
    };
    const event = normalizeEvent({ ...base, meta: { format: 'forged' } }, meta);
    expect(event.meta).toEqual(meta);
  });
});
