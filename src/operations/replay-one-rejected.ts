import { createEventIntake } from '../events/event-intake';
import type { RejectedStore } from '../events/rejected-store';
import { RefusedDeliveryError } from '../events/refused-delivery-error';
import { messageOf } from '../message-of';
import type { ReplayTargets } from './replay-targets';

/** What became of one kept delivery: queued (and removed), or kept with the reason. */
export type RejectedReplayOutcome =
  { queued: true; message: string } | { queued: false; missing: boolean; message: string };

/**
 * One kept delivery through the listener's own intake again (src/events/event-intake.ts: parse →
 * normalize → enqueue; the
 * signature held at receipt and is not checked again), so a delivery refused before an upgrade is
 * queued after it. In a consortium it goes to the queue of the institution whose path it came on,
 * under that path's rules. It is removed only once its event is queued. The CLI's
 * `rejected replay` and the console's replay button both call this.
 */
export async function replayOneRejected(
  store: RejectedStore,
  targets: ReplayTargets,
  ref: string,
): Promise<RejectedReplayOutcome> {
  const found = await store.get(ref);
  if (found === undefined) {
    return { queued: false, missing: true, message: `${ref}: no such rejected delivery` };
  }
  const { entry, body } = found;
  const target = targets.targetOf(entry.institution);
  if ('refused' in target) {
    return { queued: false, missing: false, message: `${ref}: not replayed: ${target.refused}` };
  }
  const intake = createEventIntake({ enqueue: target.enqueue, enqueueTimeoutMs: 5000 });
  try {
    const outcome = await intake({
      body,
      contentType: entry.contentType,
      receivedAt: new Date(entry.receivedAt),
      requestId: entry.requestId,
    });
    await store.remove(ref);
    const how = outcome.duplicate ? 'already queued' : 'queued';
    const where = entry.institution === undefined ? '' : ` for ${entry.institution}`;
    return {
      queued: true,
      message: `${ref}: ${how} as ${outcome.jobId}${where} (event ${outcome.event.id})`,
    };
  } catch (error) {
    const refused = error instanceof RefusedDeliveryError;
    return {
      queued: false,
      missing: false,
      message: `${ref}: ${refused ? 'still refused' : 'not replayed'}: ${messageOf(error)}`,
    };
  }
}
