import { readdir } from 'node:fs/promises';
import type { DeliveryRecord } from '../redis-ha/support/send-deliveries';
import type { ChildWorker } from '../worker/support/child-process';
import { mixedKinds } from './support/mixed-kinds';
import { CIRCULATION_ACTIONS, OUTAGE_ROUTES, startOutagePipeline } from './support/outage-pipeline';
import type { OutagePipeline } from './support/outage-pipeline';
import { sendThroughOutage } from './support/send-through-outage';
import type { OutageRun, OutageTimings } from './support/send-through-outage';
import { settledTallies } from './support/settled-tallies';
import type { ExpectedByRoute, TallyByRoute } from './support/settled-tallies';

const TIMINGS: OutageTimings = {
  perSecond: 100,
  beforeMs: 10_000,
  outageMs: 120_000,
  afterMs: 10_000,
  // Generous: a loaded 2-core machine; the bound the spool is held to is DRAIN_WITHIN_MS.
  giveUpMs: 150_000,
};
/** The spool's target (docs/listener.md#the-spool): empty this soon after Redis is back. */
const DRAIN_WITHIN_MS = 60_000;
/** Generous wait for every route to have every event (the target bounds none). */
const DELIVERED_WITHIN_MS = 150_000;
/** BullMQ's stalled check (every 30 s) has run after Redis came back before the final count. */
const STALLED_CHECK_MS = 40_000;

jest.setTimeout(360_000);

describe('the whole pipeline through a 120 s Redis outage at 100 events/s', () => {
  let pipeline: OutagePipeline;
  beforeAll(async () => {
    pipeline = await startOutagePipeline();
  });
  afterAll(async () => {
    await pipeline.close();
  });

  it('answers every delivery 200, empties the spool within 60 s of the return, and delivers each event once to each matching route', async () => {
    const kinds = mixedKinds();
    const run = await sendThroughOutage(pipeline, kinds, TIMINGS);
    const all = new Set(run.records.map((record) => record.id));
    const circulation = [...all].filter((id) =>
      CIRCULATION_ACTIONS.has(kinds.actionOf.get(id) ?? ''),
    );
    const expected: ExpectedByRoute = {
      everything: all,
      archive: all,
      circulation: new Set(circulation),
    };
    const tallies = await settledTallies(pipeline, expected, {
      giveUpMs: DELIVERED_WITHIN_MS,
      notBefore: run.returnedAt + STALLED_CHECK_MS,
    });
    console.log(figures(run, tallies));

    expect(notOk(run.records)).toEqual([]);
    expect(run.records.length).toBeGreaterThan(0.9 * TIMINGS.perSecond * 140);
    // The spool carried the outage: about every delivery of the 120 s was in it.
    expect(run.spooledPeak).toBeGreaterThan(0.8 * TIMINGS.perSecond * 120);
    expect(run.drainMs).toBeLessThanOrEqual(DRAIN_WITHIN_MS);
    const segments = await readdir(pipeline.spoolDir);
    expect(segments.filter((name) => name.endsWith('.spool'))).toEqual([]);
    for (const route of OUTAGE_ROUTES) {
      expect({ route, ...tallies[route] }).toEqual(exactlyOnce(route, expected[route]));
    }
    // The filter matched some kinds only (two of six).
    expect(expected.circulation.size / all.size).toBeCloseTo(1 / 3, 1);
    expect(exitOf(pipeline.web)).toBeNull();
    expect(exitOf(pipeline.worker)).toBeNull();
    // Redis away is said once per process and outage (src/redis/watch-redis.ts), not per retry;
    // the listener says once too that it spools, and that its drain waits.
    const away = 'cannot reach Redis: retrying';
    expect(warningsOf(run.logsDuring.web)).toEqual([
      away,
      'queue unavailable: spooling events to disk',
      'spool drain waits: the queue does not answer',
    ]);
    expect(warningsOf(run.logsDuring.worker)).toEqual([away]);
    for (const child of [pipeline.web, pipeline.worker]) {
      expect(child.lines().map((line) => line.msg)).toContain('redis connected');
    }
  });
});

function figures(run: OutageRun, tallies: TallyByRoute): string {
  const routes = OUTAGE_ROUTES.map((route) => `${route} ${String(tallies[route].received)}`);
  return (
    `redis outage: ${String(run.records.length)} events sent at ${String(TIMINGS.perSecond)}/s, ` +
    `Redis stopped ${String(TIMINGS.outageMs / 1000)} s; spooled peak ${String(run.spooledPeak)}; ` +
    `spool empty ${(run.drainMs / 1000).toFixed(1)} s after Redis returned; ` +
    `deliveries: ${routes.join(', ')}`
  );
}

/** Every answer that was not 200, named: `<event id>: <status>` (0: no answer within 5 s). */
function notOk(records: readonly DeliveryRecord[]): string[] {
  return records
    .filter((record) => record.status !== 200)
    .map(
      (record) =>
        `${record.id}: ${String(record.status)}${record.failure === undefined ? '' : ` (${record.failure} after ${String(record.answeredAt - record.sentAt)} ms)`}`,
    );
}

function exactlyOnce(route: string, expected: ReadonlySet<string>) {
  const none = { count: 0, first: [] };
  const size = expected.size;
  return { route, received: size, distinct: size, missing: none, twice: none, unexpected: none };
}

function exitOf(child: ChildWorker): number | string | null {
  return child.child.exitCode ?? child.child.signalCode;
}

/** The warnings and errors, by message, sorted (their order depends on timing). */
function warningsOf(lines: readonly Record<string, unknown>[]): string[] {
  return lines
    .filter((line) => Number(line.level) >= 40)
    .map((line) => String(line.msg))
    .sort();
}
