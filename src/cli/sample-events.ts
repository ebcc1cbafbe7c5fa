import { randomInt } from 'node:crypto';
import type { EventKind } from '../events/kinds/event-kind';
import { eventKinds } from '../events/kinds/event-kinds';
import { toPlatformXml } from '../platform-xml/to-platform-xml';

/**
 * The samples of every kind (each kind's file has them): one per kind the platform sends, and
 * job_end as little as spec §6.2 guarantees.
 */
export const SAMPLE_KINDS: readonly string[] = eventKinds.flatMap((kind) =>
  Object.keys(kind.samples),
);
/** The name of a sample: one of SAMPLE_KINDS (or of the kinds passed to sampleEvent). */
export type SampleKind = string;
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
export function sampleEvent(
  kind: SampleKind,
  format: SampleFormat,
  now = new Date(),
  kinds: readonly EventKind[] = eventKinds,
  /** Before the id: TEST_EVENT_PREFIX marks send-test-event's events (src/events/test-event.ts). */
  idPrefix = '',
): SampleBody {
  const build = kinds.find((known) => Object.hasOwn(known.samples, kind))?.samples[kind];
  if (build === undefined) throw new RangeError(`no sample named ${kind}`);
  const eventId = `${idPrefix}${String(now.getTime())}${String(randomInt(100, 1000))}`;
  const event = build({ id: eventId, time: now.toISOString(), n: eventId.slice(-8) });
  return format === 'json'
    ? { eventId, body: Buffer.from(JSON.stringify(event)), contentType: 'application/json' }
    : {
        eventId,
        body: Buffer.from(toPlatformXml('webhook', event)),
        contentType: 'application/xml',
      };
}
