import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventRecordOf } from '../../../src/history/event-record-of';
import { deriveHistoryKeys } from '../../../src/history/history-keys';
import { recoveredJobEnd } from '../../../src/worker/job-end/recovered-job-end';

/** The instance as the platform's GET …/instances/{id} shows it (the client's recorded answer). */
const instance = JSON.parse(
  readFileSync(
    join(__dirname, '../../../packages/client/test/fixtures/job-instance.completed.json'),
    'utf8',
  ),
) as { id: string; end_time?: string } & Record<string, unknown>;

describe('a recovered job_end', () => {
  const now = new Date('2026-11-26T09:00:00.000Z');
  const event = recoveredJobEnd(instance, { institution: '01SVC_INST', now, runId: 'reconcile-1' });

  it('is the job_end the platform would have sent, normalized as the listener does', () => {
    expect(event).toMatchObject({
      id: `recovered-${instance.id}`,
      action: 'job_end',
      time: instance.end_time ?? now.toISOString(),
      institution: { value: '01SVC_INST' },
      job_instance: { id: instance.id },
    });
  });

  it('carries its mark in the listener’s meta, never in the platform’s fields', () => {
    expect(event.meta).toEqual({
      format: 'json',
      receivedAt: now.toISOString(),
      requestId: 'reconcile-1',
      recovered: true,
    });
    const { meta: _meta, ...platformPart } = event;
    expect(JSON.stringify(platformPart)).not.toContain('recovered"');
  });

  it('keeps the mark in the history’s record of the event', () => {
    const keys = deriveHistoryKeys('a-history-key-of-at-least-32-characters');
    const record = eventRecordOf(event, now, keys, 'all');
    expect(record.body).toMatchObject({ meta: { recovered: true } });
    expect(record.jobInstanceIds).toEqual([instance.id]);
  });
});
