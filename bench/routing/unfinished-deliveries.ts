import { Queue } from 'bullmq';
import type { ConnectionOptions } from 'bullmq';
import { routeQueueName } from '../../src/routes/route-queue-name';

/** The routes file's route names (pipelines.ts): ours has two; the peer has none. */
const ROUTES = ['loans', 'archive'] as const;

/**
 * Where the events of a phase that did not finish are: for the event queue and each route queue,
 * the jobs failed, delayed (a retry's backoff), waiting and active, and the last failure's reason
 * (a transform out of its bound, a destination that refused). One line, for the bench's output.
 */
export async function unfinishedDeliveries(
  connection: ConnectionOptions,
  queueName: string,
): Promise<string> {
  const names = [queueName, ...ROUTES.map((route) => routeQueueName(queueName, route))];
  const parts = await Promise.all(names.map((name) => describeQueue(connection, name)));
  return parts.join('; ');
}

async function describeQueue(connection: ConnectionOptions, name: string): Promise<string> {
  const queue = new Queue(name, { connection });
  try {
    const counts = await queue.getJobCounts('failed', 'delayed', 'waiting', 'active');
    const [last] = await queue.getFailed(0, 0);
    const reason = last?.failedReason === undefined ? '' : `, last failure: ${last.failedReason}`;
    const shown = Object.entries(counts)
      .map(([state, count]) => `${String(count)} ${state}`)
      .join(', ');
    return `${name}: ${shown}${reason}`;
  } finally {
    await queue.close();
  }
}
