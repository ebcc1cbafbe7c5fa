import { Queue } from 'bullmq';
import { routeQueueName } from '../../../../src/routes/route-queue-name';
import { OUTAGE_ROUTES } from './outage-pipeline';
import type { OutagePipeline, OutageRoute } from './outage-pipeline';
import { archivedIds, receivedIds, tallyRoute } from './route-tally';
import type { RouteTally } from './route-tally';

export type ExpectedByRoute = Record<OutageRoute, ReadonlySet<string>>;
export type TallyByRoute = Record<OutageRoute, RouteTally>;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function tallies(pipeline: OutagePipeline, expected: ExpectedByRoute): Promise<TallyByRoute> {
  return {
    everything: tallyRoute(receivedIds(pipeline.receiver, '/everything'), expected.everything),
    archive: tallyRoute(await archivedIds(pipeline.archiveDir), expected.archive),
    circulation: tallyRoute(receivedIds(pipeline.receiver, '/circulation'), expected.circulation),
  };
}

/**
 * What each route received, counted once every route has every event (or `giveUpMs` passed), at
 * least `notBefore` (a stalled check after Redis came back has run), and with the event and route
 * queues idle: a late second delivery is counted too.
 */
export async function settledTallies(
  pipeline: OutagePipeline,
  expected: ExpectedByRoute,
  options: { giveUpMs: number; notBefore: number },
): Promise<TallyByRoute> {
  const deadline = Date.now() + options.giveUpMs;
  const complete = async (): Promise<boolean> => {
    const now = await tallies(pipeline, expected);
    return OUTAGE_ROUTES.every((route) => now[route].missing.count === 0);
  };
  while (!(await complete()) && Date.now() < deadline) await sleep(1000);
  await sleep(Math.max(0, options.notBefore - Date.now()));
  await queuesIdle(pipeline, deadline);
  return tallies(pipeline, expected);
}

async function queuesIdle(pipeline: OutagePipeline, deadline: number): Promise<void> {
  const { queueName, redis } = pipeline;
  const names = [queueName, ...OUTAGE_ROUTES.map((route) => routeQueueName(queueName, route))];
  const queues = names.map((name) => new Queue(name, { connection: { url: redis.url } }));
  try {
    for (;;) {
      const counts = await Promise.all(
        queues.map((queue) => queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')),
      );
      const busy = counts.flatMap((each) => Object.values(each)).reduce((a, b) => a + b, 0);
      if (busy === 0 || Date.now() > deadline) return;
      await sleep(1000);
    }
  } finally {
    await Promise.all(queues.map((queue) => queue.close()));
  }
}
