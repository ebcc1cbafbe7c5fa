import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { InstitutionOverview, Overview, RouteOverview } from './api-schemas';
import type { ConsoleQueues, EventQueue } from './console-queues';
import type { ConsoleHistory } from './console-history';
import { isoOrNull, jobInstitution } from './job-institution';
import type { Principal } from './principal';
import { routeStateOf } from './route-state';
import type { Route } from '../routes/routes-file';

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
  const since = now - HOUR_MS;
  const ours = (job: Job) => institution === undefined || jobInstitution(job) === institution;
  // Unscoped, counts come from the sorted sets and a small sample gives the p95; scoped, the
  // newest SAMPLE jobs of each set are read and filtered by the event's institution.
  const take = institution === undefined ? P95_SAMPLE : SAMPLE;
  const [state, counts, completed, failed, hour] = await Promise.all([
    routeStateOf(queue, route.name, sources.circuitOpen),
    queue.getJobCounts('wait', 'prioritized', 'failed'),
    queue.getCompleted(0, take - 1),
    queue.getFailed(0, take - 1),
    institution === undefined
      ? finishedSinceApart(sources.queues.connection, queue, since)
      : undefined,
  ]);
  const inHour = (job: Job) => ours(job) && (job.finishedOn ?? 0) >= since;
  const delivered = completed.filter(inHour);
  const last = [...completed.slice(0, 1), ...failed.slice(0, 1)]
    .concat(institution === undefined ? [] : [...completed, ...failed].filter(ours))
    .filter(ours)
    .sort((a, b) => (b.finishedOn ?? 0) - (a.finishedOn ?? 0))[0];
  return {
    route: route.name,
    state,
    waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0),
    failed: institution === undefined ? (counts.failed ?? 0) : failed.filter(ours).length,
    deliveredLastHour: hour?.completed ?? delivered.length,
    failedLastHour: hour?.failed ?? failed.filter(inHour).length,
    p95DeliveryMs: p95(delivered.map((job) => (job.finishedOn ?? 0) - (job.processedOn ?? 0))),
    lastResult: last === undefined ? null : last.failedReason ? 'failed' : 'delivered',
    lastResultAt: isoOrNull(last?.finishedOn),
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
