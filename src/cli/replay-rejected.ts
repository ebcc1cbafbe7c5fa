import { createEventIntake } from '../events/event-intake';
import type { RejectedStore } from '../events/rejected-store';
import { RefusedDeliveryError } from '../events/refused-delivery-error';
import type { CliIo } from './cli-io';
import { messageOf } from './message-of';
import type { ReplayTargets } from './replay-targets';

export interface ReplayRejectedOptions {
  store: RejectedStore;
  /** The queue of each entry: the event queue, or its institution's (replay-targets.ts). */
  targets: ReplayTargets;
  refs: string[];
  io: CliIo;
}

/**
 * `rejected replay`: the stored bytes go through the listener's own intake again
 * (src/events/event-intake.ts: parse → normalize → enqueue; the signature held at receipt and is
 * not checked again), so a delivery
 * refused before an upgrade is queued after it. In a consortium an entry goes to the queue of the
 * institution whose path it came on, under that path's rules. An entry is removed only once its
 * event is queued.
 */
export async function replayRejected({
  store,
  targets,
  refs,
  io,
}: ReplayRejectedOptions): Promise<number> {
  if (refs.length === 0) {
    io.out('No rejected deliveries to replay.');
    return 0;
  }
  let queued = 0;
  for (const ref of refs) {
    const found = await store.get(ref);
    if (found === undefined) {
      io.err(`✗ ${ref}: no such rejected delivery`);
      continue;
    }
    const { entry, body } = found;
    const target = targets.targetOf(entry.institution);
    if ('refused' in target) {
      io.err(`✗ ${ref}: not replayed: ${target.refused}`);
      continue;
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
      queued += 1;
      const how = outcome.duplicate ? 'already queued' : 'queued';
      const where = entry.institution === undefined ? '' : ` for ${entry.institution}`;
      io.out(`✓ ${ref}: ${how} as ${outcome.jobId}${where} (event ${outcome.event.id})`);
    } catch (error) {
      const refused = error instanceof RefusedDeliveryError;
      io.err(`✗ ${ref}: ${refused ? 'still refused' : 'not replayed'}: ${messageOf(error)}`);
    }
  }
  io.out(`${String(queued)} of ${String(refs.length)} replayed; the others are still kept.`);
  return queued === refs.length ? 0 : 1;
}
