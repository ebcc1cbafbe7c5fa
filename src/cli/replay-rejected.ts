import type { Queue } from 'bullmq';
import { createEventEnqueuer } from '../events/enqueue-event';
import { InvalidEventError } from '../events/invalid-event-error';
import type { RejectedStore } from '../events/rejected-store';
import { createDeliveryPipeline } from '../http/delivery-pipeline';
import { HttpError } from '../http/http-error';
import type { CliRejectedConfig } from './cli-config';
import type { CliIo } from './cli-io';
import { messageOf } from './message-of';

export interface ReplayRejectedOptions {
  store: RejectedStore;
  queue: Queue;
  config: CliRejectedConfig;
  refs: string[];
  io: CliIo;
}

/**
 * `rejected replay`: the stored bytes go through the listener's own pipeline again (parse →
 * normalize → enqueue; the signature held at receipt and is not checked again), so a delivery
 * refused before an upgrade is queued after it. An entry is removed only once its event is queued.
 */
export async function replayRejected({
  store,
  queue,
  config,
  refs,
  io,
}: ReplayRejectedOptions): Promise<number> {
  const pipeline = createDeliveryPipeline({
    enqueue: createEventEnqueuer({
      queue,
      dedupWindowHours: config.DEDUP_WINDOW_HOURS,
      attempts: config.JOB_ATTEMPTS,
    }),
    enqueueTimeoutMs: 5000,
  });
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
    try {
      const outcome = await pipeline({
        body,
        contentType: entry.contentType,
        receivedAt: new Date(entry.receivedAt),
        requestId: entry.requestId,
      });
      await store.remove(ref);
      queued += 1;
      const how = outcome.duplicate ? 'already queued' : 'queued';
      io.out(`✓ ${ref}: ${how} as ${outcome.jobId} (event ${outcome.event.id})`);
    } catch (error) {
      const refused = error instanceof HttpError || error instanceof InvalidEventError;
      io.err(`✗ ${ref}: ${refused ? 'still refused' : 'not replayed'}: ${messageOf(error)}`);
    }
  }
  io.out(`${String(queued)} of ${String(refs.length)} replayed; the others are still kept.`);
  return queued === refs.length ? 0 : 1;
}
