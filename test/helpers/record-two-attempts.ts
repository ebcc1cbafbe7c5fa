import type { CanonicalEvent } from '../../src/events/canonical-event';
import type { HistoryRecorder } from '../../src/history/create-history-recorder';

/**
 * Records a route's two attempts at an event as the worker would: the first inline (no route
 * job) and refused, the second by route job `jobId` with `second`'s outcome. Resolves with the
 * time the attempts are placed from: the first ends 13 ms after it, the second 23 ms after.
 */
export async function recordTwoAttempts(
  recorder: HistoryRecorder,
  event: CanonicalEvent,
  options: { route: string; jobId: string; second: 'retrying' | 'delivered' },
): Promise<number> {
  const at = Date.now();
  for (const attempt of [1, 2]) {
    const inline = attempt === 1;
    const refused = inline || options.second === 'retrying';
    await recorder.attempt({
      event,
      route: options.route,
      attempt,
      ...(inline ? {} : { jobId: options.jobId }),
      startedAt: new Date(at + attempt * 10),
      endedAt: new Date(at + attempt * 10 + 3),
      outcome: refused ? 'retrying' : 'delivered',
      ...(refused ? { error: 'connect ECONNREFUSED 127.0.0.1:9' } : { status: 200 }),
      durationMs: 3,
    });
  }
  return at;
}
