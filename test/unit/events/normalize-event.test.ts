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

  it.each(['id', 'action', 'time'])('rejects a body without %s, naming it', (field) => {
    const body = Object.fromEntries(Object.entries({ ...base }).filter(([key]) => key !== field));
    const error = errorOf(body);
    expect(error.field).toBe(field);
    expect(error.message).toBe(`${field} is missing`);
  });

  it('rejects a time that is not ISO 8601, naming the field', () => {
    const error = errorOf({ ...base, time: '06/11/2024 10:15' });
    expect(error.field).toBe('time');
    expect(error.message).toMatch(/^time is invalid/);
  });

  it.each([[[]], ['text'], [42], [null]])('rejects a body that is not an object (%p)', (body) => {
    expect(errorOf(body).message).toBe('body must be an object with id, action and time');
  });

  it('drops null values and empty strings at every depth', () => {
    const event = normalizeEvent({
      ...base,
      job_instance: { id: '9', name: 'x', external_id: null, note: '', job_info: { link: null } },
    });
    expect(event.job_instance).toEqual({ id: '9', name: 'x' });
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
    expect(event.x).toBeUndefined();
  });

  it('accepts a numeric id from a lenient writer as its string', () => {
    expect(normalizeEvent({ ...base, id: 3219421620 }).id).toBe('3219421620');
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
