import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { InstitutionOverview, Overview, RouteOverview } from './console-views';
import type { ConsoleQueues, EventQueue } from './console-queues';
import type { ConsoleHistory } from './console-history';
import { isoOrNull, jobInstitution } from './job-institution';
import type { Principal } from '../auth/principal';
import { routeStateOf } from './route-state';
import type { Route } from '../../routes/routes-file';

export interface OverviewSources {
  readonly queues: ConsoleQueues;
  readonly history?: ConsoleHistory | undefined;
  /** The circuit breaker's state of a route, once routes have one; undefined: no breaker. */
  readonly circuitOpen?: ((route: string) => Promise<boolean>) | undefined;
  /** The API budget left, where the worker stores it; undefined: not stored. */
  readonly remainingOf?:
    ((institution: string | undefined) => Promise<number | undefined>) | undefined;
  readonly now: () => Date;
}

const HOUR_MS = 3600_000;
/** Deliveries read for an institution-scoped principal's own counts: the newest this many. */
const SAMPLE = 1000;
/** Deliveries read for the p95 delivery time: the newest this many of the hour. */
const P95_SAMPLE = 200;

/** Everything the overview page shows, read from Redis (and PostgreSQL's health when history is on). */
export async function readOverview(
  sources: OverviewSources,
  principal: Principal,
): Promise<Overview> {
  const now = sources.now().getTime();
  const visible = sources.queues.events.filter(
    (one) => principal.institution === undefined || one.institution === principal.institution,
  );
  const [redis, postgresql, institutions, routes] = await Promise.all([
    sources.queues.connection.ping().then(
      () => 'up' as const,
      () => 'down' as const,
    ),
    postgresHealth(sources.history),
    Promise.all(visible.map((one) => institutionRow(sources, one, now))),
    Promise.all(
      sources.queues.routes.map((one) => routeRow(sources, one, principal.institution, now)),
    ),
  ]);
  return {
    at: new Date(now).toISOString(),
    history: sources.history === undefined ? 'off' : 'on',
    health: { redis, postgresql },
    institutions,
    routes,
  };
}

async function postgresHealth(
  history: ConsoleHistory | undefined,
): Promise<Overview['health']['postgresql']> {
  if (history === undefined) return 'not configured';
  return (await history.ping().catch(() => false)) ? 'up' : 'down';
}

async function institutionRow(
  sources: OverviewSources,
  { institution, queue }: EventQueue,
  now: number,
): Promise<InstitutionOverview> {
  const since = now - HOUR_MS;
  const [counts, newest, oldestWaiting, finishedLastHour, remaining] = await Promise.all([
    queue.getJobCounts('wait', 'prioritized', 'active', 'delayed', 'failed'),
    newestJobs(queue),
    queue.getJobs(['wait'], 0, 0, true),
    finishedSince(sources.queues.connection, queue, since),
    sources.remainingOf?.(institution) ?? Promise.resolve(undefined),
  ]);
  const lastAdded = Math.max(0, ...newest.map((job) => job.timestamp));
  // Jobs added within the hour: those finished in it plus those not finished yet (near enough).
  const pending = (counts.wait ?? 0) + (counts.prioritized ?? 0) + (counts.active ?? 0);
  const oldest = oldestWaiting[0]?.timestamp;
  return {
    institution: institution ?? null,
    queue: queue.name,
    lastEventAt: isoOrNull(lastAdded),
    lastEventAgoSeconds: lastAdded === 0 ? null : Math.round((now - lastAdded) / 1000),
    eventsPerMinuteLastHour: Math.round(((finishedLastHour + pending) / 60) * 100) / 100,
    apiCallsRemaining: remaining ?? null,
    waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0),
    failed: counts.failed ?? 0,
    oldestWaitingAgeSeconds: oldest === undefined ? null : Math.round((now - oldest) / 1000),
  };
}

/** The newest job of each state it can be in: the latest `timestamp` is among them. */
async function newestJobs(queue: Queue): Promise<Job[]> {
  const lists = await Promise.all(
    (['wait', 'active', 'completed', 'failed', 'delayed'] as const).map((type) =>
      queue.getJobs([type], 0, 0),
    ),
  );
  return lists.flat();
}

/** Completed and failed jobs finished since `since`: their sorted sets are scored by finishedOn. */
async function finishedSince(client: Redis, queue: Queue, since: number): Promise<number> {
  const [completed, failed] = await Promise.all([
    client.zcount(queue.keys.completed ?? '', since, '+inf'),
    client.zcount(queue.keys.failed ?? '', since, '+inf'),
  ]);
  return completed + failed;
}

async function routeRow(
  sources: OverviewSources,
  { route, queue }: { route: Route; queue: Queue },
  institution: string | undefined,
  now: number,
): Promise<RouteOverview> {
  const [state, counts, seen] = await Promise.all([
    routeStateOf(queue, route.name, sources.circuitOpen),
    queue.getJobCounts('wait', 'prioritized', 'failed'),
    institution === undefined
      ? allDeliveries(sources.queues.connection, queue, now - HOUR_MS)
      : deliveriesOf(queue, institution, now - HOUR_MS),
  ]);
  return {
    route: route.name,
    state,
    waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0),
    failed: seen.failed ?? counts.failed ?? 0,
    deliveredLastHour: seen.deliveredLastHour,
    failedLastHour: seen.failedLastHour,
    p95DeliveryMs: p95(seen.deliveryMs),
    lastResult: seen.last?.result ?? null,
    lastResultAt: isoOrNull(seen.last?.at),
  };
}

/** What a route's finished jobs say, for every institution or one. */
interface Deliveries {
  /** Failed jobs kept (one institution's); undefined: the queue's count. */
  readonly failed?: number;
  readonly deliveredLastHour: number;
  readonly failedLastHour: number;
  readonly deliveryMs: number[];
  readonly last: { result: 'delivered' | 'failed'; at: number } | undefined;
}

/**
 * Every institution's deliveries from the sorted sets (scored by finishedOn) and two fields of
 * the hour's newest P95_SAMPLE completed jobs: no job's data is read or parsed.
 */
async function allDeliveries(client: Redis, queue: Queue, since: number): Promise<Deliveries> {
  const completedKey = queue.keys.completed ?? '';
  const [hour, sample, newestCompleted, newestFailed] = await Promise.all([
    finishedSinceApart(client, queue, since),
    client.zrevrangebyscore(completedKey, '+inf', since, 'LIMIT', 0, P95_SAMPLE),
    client.zrevrange(completedKey, 0, 0, 'WITHSCORES'),
    client.zrevrange(queue.keys.failed ?? '', 0, 0, 'WITHSCORES'),
  ]);
  const timings = client.pipeline();
  for (const id of sample) timings.hmget(queue.toKey(id), 'processedOn', 'finishedOn');
  const rows = sample.length === 0 ? [] : ((await timings.exec()) ?? []);
  const deliveryMs = rows.flatMap(([error, value]) => {
    const [processed, finished] = (error === null ? value : []) as (string | null)[];
    return processed && finished ? [Number(finished) - Number(processed)] : [];
  });
  const delivered = Number(newestCompleted[1] ?? 0);
  const failed = Number(newestFailed[1] ?? 0);
  const last =
    delivered === 0 && failed === 0
      ? undefined
      : delivered >= failed
        ? { result: 'delivered' as const, at: delivered }
        : { result: 'failed' as const, at: failed };
  return {
    deliveredLastHour: hour.completed,
    failedLastHour: hour.failed,
    deliveryMs,
    last,
  };
}

/** One institution's deliveries: the newest SAMPLE jobs of each set, filtered by the event's institution. */
async function deliveriesOf(queue: Queue, institution: string, since: number): Promise<Deliveries> {
  const ours = (job: Job) => jobInstitution(job) === institution;
  const [completed, failed] = await Promise.all([
    queue.getCompleted(0, SAMPLE - 1),
    queue.getFailed(0, SAMPLE - 1),
  ]);
  const inHour = (job: Job) => ours(job) && (job.finishedOn ?? 0) >= since;
  const delivered = completed.filter(inHour);
  const last = [...completed, ...failed]
    .filter(ours)
    .sort((a, b) => (b.finishedOn ?? 0) - (a.finishedOn ?? 0))[0];
  return {
    failed: failed.filter(ours).length,
    deliveredLastHour: delivered.length,
    failedLastHour: failed.filter(inHour).length,
    deliveryMs: delivered.map((job) => (job.finishedOn ?? 0) - (job.processedOn ?? 0)),
    last:
      last === undefined
        ? undefined
        : { result: last.failedReason ? 'failed' : 'delivered', at: last.finishedOn ?? 0 },
  };
}

async function finishedSinceApart(
  client: Redis,
  queue: Queue,
  since: number,
): Promise<{ completed: number; failed: number }> {
  const [completed, failed] = await Promise.all([
    client.zcount(queue.keys.completed ?? '', since, '+inf'),
    client.zcount(queue.keys.failed ?? '', since, '+inf'),
  ]);
  return { completed, failed };
}

function p95(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? null;
}
