/**
 * The embedded history's scenario, run in a process of its own by history-embedded.test.ts:
 * PGlite's CommonJS build loads its files with import(), which jest's module sandbox refuses
 * without --experimental-vm-modules. Prints what it saw as one JSON line.
 */
import { Redis } from 'ioredis';
import { createHistoryWriter } from '../../src/history/create-history-writer';
import { historyJourney } from '../../src/history/history-journey';
import { deriveHistoryKeys } from '../../src/history/history-keys';
import { migrateHistory } from '../../src/history/migrate-history';
import { openHistoryDatabase } from '../../src/history/open-history-database';
import { pruneHistory } from '../../src/history/prune-history';
import { countHistory, searchHistory } from '../../src/history/search-history';
import { dumpSchemaText } from './history-database';
import { TEST_HISTORY_KEY, fixtureEvent, testHistoryRecorder } from './history-events';
import { recordRun } from './record-run';
import { TEST_REDIS_URL, uniqueQueueName } from './redis';

async function main(): Promise<void> {
  const db = await openHistoryDatabase({ embedded: true });
  if (db === undefined) throw new Error('no database');
  const redis = new Redis(TEST_REDIS_URL);
  const streamKey = `${uniqueQueueName('embedded')}:history`;
  try {
    const again = await migrateHistory(db);
    const recorder = testHistoryRecorder(redis, streamKey);
    const loan = fixtureEvent('loan-returned');
    const old = fixtureEvent('loan-created', {
      receivedAt: new Date(Date.now() - 30 * 86_400_000).toISOString(),
    });
    await recorder.event(loan);
    await recorder.event(old);
    await recorder.attempt({
      event: loan,
      route: 'circ',
      attempt: 1,
      startedAt: new Date(),
      endedAt: new Date(),
      outcome: 'delivered',
      status: 200,
      durationMs: 4,
    });
    await recordRun(recorder, loan, { jobId: 'job-1', endedAt: new Date(Date.now() + 50) });
    const written = await createHistoryWriter({ redis, db, streamKey }).drainOnce();
    const context = { db, keys: deriveHistoryKeys(TEST_HISTORY_KEY) };
    const found = await searchHistory(context, { user: 'S1004217' });
    const counts = [
      await countHistory(context, { action: 'loan' }),
      await countHistory(context, { action: 'loan' }, 0),
    ];
    const newest = await searchHistory(context, { limit: 1 });
    const steps = await historyJourney(context, loan.id);
    const dump = (await dumpSchemaText(db)).toLowerCase();
    const pruned = await pruneHistory(db, { days: 90, patronDays: 7 });
    const remaining = await searchHistory(context, {});
    console.log(
      JSON.stringify({
        embedded: db.embedded,
        appliedAgain: again.applied,
        version: again.current,
        counts,
        newest: newest.items.map((item) => item.eventId),
        hasNext: newest.next !== undefined,
        written,
        loanId: loan.id,
        found: found.items.map((item) => item.eventId),
        steps: steps.map((step) => step.kind),
        idInClear: dump.includes('s1004217'),
        dropped: pruned.dropped.length,
        remaining: remaining.items.map((item) => item.eventId),
      }),
    );
  } finally {
    await redis.del(streamKey);
    redis.disconnect();
    await db.close();
  }
}

void main();
