import type { RejectedStore } from '../events/rejected-store';
import { replayOneRejected } from '../operations/replay-one-rejected';
import type { ReplayTargets } from '../operations/replay-targets';
import type { CliIo } from './cli-io';
import { cliLogger } from './cli-logger';
import { historyActor } from './history-actor';
import { logOperatorAction } from '../operations/operator-action';

export interface ReplayRejectedOptions {
  store: RejectedStore;
  /** The queue of each entry: the event queue, or its institution's (replay-targets.ts). */
  targets: ReplayTargets;
  refs: string[];
  io: CliIo;
}

/** `rejected replay`: each ref through replayOneRejected, saying each one's outcome. */
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
    const outcome = await replayOneRejected(store, targets, ref);
    if (outcome.queued) {
      queued += 1;
      io.out(`✓ ${outcome.message}`);
    } else {
      io.err(`✗ ${outcome.message}`);
    }
  }
  logOperatorAction(cliLogger(io), 'cli', {
    actor: historyActor(),
    action: 'rejected.replay',
    target: refs.length === 1 ? (refs[0] ?? '') : 'rejected deliveries',
    outcome: queued === refs.length ? 'done' : 'failed',
    count: queued,
  });
  io.out(`${String(queued)} of ${String(refs.length)} replayed; the others are still kept.`);
  return queued === refs.length ? 0 : 1;
}
