import type { CanonicalEvent } from '../../src/events/canonical-event';
import type { HistoryRecorder } from '../../src/history/create-history-recorder';
import type { StepOutcome } from '../../src/history/history-record';

/**
 * Records one run of an event's job as the worker would (src/history/journey-stage.ts): queued and
 * taken (unless given, in the millisecond the listener received it: anything recorded later comes
 * after them), and — given `endedAt` — its end with `outcome`. Without `endedAt` the run has no
 * end, as when its worker died.
 */
export async function recordRun(
  recorder: HistoryRecorder,
  event: CanonicalEvent,
  options: {
    jobId: string;
    run?: number;
    queuedAt?: Date;
    takenAt?: Date;
    endedAt?: Date;
    outcome?: StepOutcome;
  },
): Promise<void> {
  const received = Date.parse(event.meta?.receivedAt ?? new Date().toISOString());
  const common = { event, jobId: options.jobId, run: options.run ?? 1 };
  await recorder.step({
    ...common,
    step: 'taken',
    at: options.takenAt ?? new Date(received),
    queuedAt: options.queuedAt ?? new Date(received),
  });
  if (options.endedAt === undefined) return;
  await recorder.step({
    ...common,
    step: 'ended',
    at: options.endedAt,
    outcome: options.outcome ?? 'completed',
  });
}
