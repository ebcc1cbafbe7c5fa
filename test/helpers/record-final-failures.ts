import type { CanonicalEvent } from '../../src/events/canonical-event';
import type { HistoryRecorder } from '../../src/history/create-history-recorder';

/**
 * Records each event's last attempt on `route` as a final failure (retries exhausted), ended now:
 * what makes it a recovery candidate (src/history/recovery-candidates.ts).
 */
export async function recordFinalFailures(
  recorder: HistoryRecorder,
  events: readonly CanonicalEvent[],
  failure: { route: string; attempt: number; status: number; error: string; durationMs: number },
): Promise<void> {
  for (const event of events) {
    await recorder.attempt({
      event,
      ...failure,
      startedAt: new Date(),
      endedAt: new Date(),
      outcome: 'failed',
    });
  }
}
