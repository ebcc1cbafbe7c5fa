import { stat } from 'node:fs/promises';
import { deriveHistoryKeys } from '../../src/history';
import { demoJourney } from './demo-journey';
import { kb, ms } from './demo-narrator';
import type { StoredSummary } from './demo-narrator';
import type { DemoOutput } from './demo-output';
import type { DemoParts } from './start-demo-parts';

/**
 * Follows the job_end event of one instance to its end: the records stored and whole on disk, the
 * event routed to the archive, its journey in the history, a summary. 0 when all held, 1 when one
 * did not (what is missing is said), 130 when interrupted.
 */
export async function followDemoEvent(
  parts: DemoParts,
  instanceId: string,
  out: DemoOutput,
  options: { timeoutMs: number; interruption: Promise<'interrupted'> },
): Promise<number> {
  const outcome = await Promise.race([
    parts.narrator.storedFor(instanceId),
    options.interruption,
    after(options.timeoutMs, 'timeout' as const),
  ]);
  if (outcome === 'interrupted') return 130;
  if (outcome === 'timeout') {
    out.say('✗', `no records stored within ${ms(options.timeoutMs)}; see ${parts.logFile}`);
    return 1;
  }
  const onDisk = await stat(outcome.file);
  out.say(
    onDisk.size === outcome.bytes ? '✓' : '✗',
    `file complete on disk: ${kb(onDisk.size)} (written to a temporary name, then renamed)`,
  );
  const routed = await Promise.race([
    parts.narrator.routedFor(outcome.eventId),
    after(5000, undefined),
  ]);
  if (routed === undefined) {
    out.say(
      '✗',
      `event ${outcome.eventId} not routed to the archive within 5 s; see ${parts.logFile}`,
    );
    return 1;
  }
  return showJourney(parts, outcome, out);
}

async function showJourney(
  parts: DemoParts,
  outcome: StoredSummary,
  out: DemoOutput,
): Promise<number> {
  const journey = await demoJourney(
    { db: parts.historyDb, keys: deriveHistoryKeys(parts.historyKey) },
    outcome.eventId,
    ['archive'],
    5000,
  );
  if (journey === undefined) {
    out.say('✗', `the history of event ${outcome.eventId} is not complete within 5 s`);
    return 1;
  }
  out.print();
  // Only a command that works after the demo: the CLI reads the history at DATABASE_URL.
  out.print(
    parts.historyKept
      ? `History of event ${outcome.eventId} (npm run events -- history show ${outcome.eventId}):`
      : `History of event ${outcome.eventId} (kept in this process only; with DATABASE_URL and HISTORY_KEY set, the demo keeps it for npm run events -- history show):`,
  );
  for (const step of journey) out.print(`  ${step}`);
  out.print();
  out.print(
    `Summary: event ${outcome.eventId} → job ${outcome.jobId} "${outcome.jobName}", instance ${outcome.instanceId} ${outcome.status}:`,
  );
  out.print(
    `         ${String(outcome.records)} records (${kb(outcome.bytes)}) stored by the worker in ${ms(outcome.durationMs)} with ${String(outcome.apiCalls)} API calls.`,
  );
  return 0;
}

function after<T>(delayMs: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), delayMs).unref());
}
