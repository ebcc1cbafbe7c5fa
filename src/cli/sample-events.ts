import { randomInt } from 'node:crypto';
import { toPlatformXml } from '../platform-xml/to-platform-xml';

export const SAMPLE_KINDS = ['job_end', 'job_end_minimal', 'loan'] as const;
export type SampleKind = (typeof SAMPLE_KINDS)[number];
export type SampleFormat = 'json' | 'xml';

export interface SampleBody {
  eventId: string;
  body: Buffer;
  contentType: string;
}

const BASE = 'https://svc.example.org/svcws/v1';

/**
 * A built-in event of each kind the platform sends (spec §6.2), with a fresh id and the current
 * time so a listener never takes it for a redelivery. XML follows the platform's conventions
 * (docs/platform-shapes.md) through the same writer the sandbox uses.
 */
export function sampleEvent(kind: SampleKind, format: SampleFormat, now = new Date()): SampleBody {
  const eventId = `${String(now.getTime())}${String(randomInt(100, 1000))}`;
  const event = eventOf(kind, eventId, now.toISOString());
  return format === 'json'
    ? { eventId, body: Buffer.from(JSON.stringify(event)), contentType: 'application/json' }
    : {
        eventId,
        body: Buffer.from(toPlatformXml('webhook', event)),
        contentType: 'application/xml',
      };
}

function eventOf(kind: SampleKind, id: string, time: string): Record<string, unknown> {
  const institution = { value: '01SVC_INST', desc: 'Test institution' };
  const instanceId = `58710435${id.slice(-8)}`;
  switch (kind) {
    case 'job_end_minimal':
      // spec §6.2 guarantees no more than the instance's id and name.
      return { id, action: 'JOB_END', time, job_instance: { id: instanceId, name: 'Test job' } };
    case 'job_end':
      return {
        id,
        action: 'JOB_END',
        institution,
        time,
        job_instance: {
          id: instanceId,
          name: 'Import MARC records - test event',
          link: `${BASE}/conf/jobs/S7781/instances/${instanceId}`,
          status: { value: 'COMPLETED_SUCCESS', desc: 'Completed Successfully' },
          end_time: time,
          progress: 100,
          job_info: {
            id: 'S7781',
            name: 'Import MARC records',
            link: `${BASE}/conf/jobs/S7781`,
            type: { value: 'SCHEDULED', desc: 'Scheduled' },
            category: { value: 'IMPORT', desc: 'Import' },
          },
          counter: [
            {
              type: { value: 'TOTAL_RECORDS_IMPORTED', desc: 'Total records imported' },
              value: '3',
            },
          ],
        },
      };
    case 'loan':
      return {
        id,
        action: 'LOAN_CREATED',
        institution,
        time,
        event: { value: 'LOAN_CREATED', desc: 'Loan created' },
        item_loan: {
          loan_id: `234001${id.slice(-8)}`,
          user_id: 'test-user',
          title: 'A history of rivers',
          loan_status: 'ACTIVE',
          due_date: new Date(Date.parse(time) + 28 * 86_400_000).toISOString(),
        },
      };
  }
}
