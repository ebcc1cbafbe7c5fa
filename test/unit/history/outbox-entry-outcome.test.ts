import { readOutboxEntry } from '../../../src/history/outbox-entry';

const BEFORE = {
  eventReceivedAt: '2026-11-20T10:00:00.000Z',
  institution: '01SVC_INST',
  eventId: '7301',
  outcome: 'stored',
  counters: { records: 25 },
  files: [{ path: 'records/a.mrc', bytes: 2048, records: 25 }],
  recordedAt: '2026-11-20T10:00:02.000Z',
};

describe('outcome records in the outbox', () => {
  it('reads an outcome record as the worker writes it now', () => {
    const record = {
      ...BEFORE,
      type: 'outcome',
      action: 'job_end',
      subjectId: '5871',
      subjectName: 'Import',
    };
    const entry = readOutboxEntry('1-0', ['r', JSON.stringify(record)]);
    expect(entry).toEqual({ records: [{ id: '1-0', record }], count: 1, unreadable: 0 });
  });

  it('reads one an older worker left (type job_end, jobInstanceId, jobName) as today’s', () => {
    const old = { ...BEFORE, type: 'job_end', jobInstanceId: '5871', jobName: 'Import' };
    const entry = readOutboxEntry('1-0', ['r', JSON.stringify(old)]);
    expect(entry.unreadable).toBe(0);
    expect(entry.records[0]?.record).toEqual({
      ...BEFORE,
      type: 'outcome',
      action: 'job_end',
      subjectId: '5871',
      subjectName: 'Import',
    });
  });

  it('still refuses a record of no known type', () => {
    const entry = readOutboxEntry('1-0', ['r', JSON.stringify({ ...BEFORE, type: 'other' })]);
    expect(entry).toEqual({ records: [], count: 1, unreadable: 1 });
  });
});
