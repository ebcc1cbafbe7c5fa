import { randomInt } from 'node:crypto';
import { toPlatformXml } from '../platform-xml/to-platform-xml';
import { sampleEventBodies } from './sample-event-bodies';

/** One sample per kind the platform sends, and job_end as little as spec §6.2 guarantees. */
export const SAMPLE_KINDS = [
  'job_end',
  'job_end_minimal',
  'loan',
  'request',
  'bib',
  'item',
  'user',
  'notification',
] as const;
export type SampleKind = (typeof SAMPLE_KINDS)[number];
export type SampleFormat = 'json' | 'xml';

export interface SampleBody {
  eventId: string;
  body: Buffer;
  contentType: string;
}

/**
 * A built-in event of each kind the platform sends (spec §6.2), with a fresh id and the current
 * time so a listener never takes it for a redelivery. XML follows the platform's conventions
 * (docs/platform-shapes.md) through the same writer the sandbox uses.
 */
export function sampleEvent(kind: SampleKind, format: SampleFormat, now = new Date()): SampleBody {
  const eventId = `${String(now.getTime())}${String(randomInt(100, 1000))}`;
  const event = sampleEventBodies[kind]({
    id: eventId,
    time: now.toISOString(),
    n: eventId.slice(-8),
  });
  return format === 'json'
    ? { eventId, body: Buffer.from(JSON.stringify(event)), contentType: 'application/json' }
    : {
        eventId,
        body: Buffer.from(toPlatformXml('webhook', event)),
        contentType: 'application/xml',
      };
}
