import type { CanonicalEvent } from '../../src/events/canonical-event';
import type { HistoryRecorder } from '../../src/history/create-history-recorder';
import type { StepOutcome } from '../../src/history/history-record';

/**
 * Records one run of an event's job as the worker would (with-journey-recorded.ts): queued 1 ms
 * and taken 2 ms after the listener received it, and — given `endedAt` — its end with `outcome`.
 * Without `endedAt` the run has no end, as when its worker died.
 */
export async function recordRun(
  recorder: HistoryRecorder,
  event: CanonicalEvent,
  options: { jobId: string; run?: number; endedAt?: Date; outcome?: StepOutcome },
): Promise<void> {
  const received = Date.parse(event.meta?.receivedAt ?? new Date().toISOString());
  const common = { event, jobId: options.jobId, run: options.run ?? 1 };
  await recorder.step({
    ...common,
    step: 'taken',
    at: new Date(received + 2),
    queuedAt: new Date(received + 1),
  });
  if (options.endedAt === undefined) return;
  await recorder.step({
    ...common,
    step: 'ended',
    at: options.endedAt,
    outcome: options.outcome ?? 'completed',
  });
}
