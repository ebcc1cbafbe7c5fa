import type { Job, Queue } from 'bullmq';
import type { RedisClient } from '../../redis/redis-client';
import { OverviewSection } from './console-views';
import type {
  ExpectedEventView,
  InstitutionOverview,
  Overview,
  RouteOverview,
} from './console-views';
import type { ConsoleQueues, EventQueue } from './console-queues';
import type { ConsoleHistory } from './console-history';
import { isoOrNull, jobInstitution } from './job-institution';
import { toHttpError } from './console-error';
import { whileRedisAnswers } from './while-redis-answers';
import { readClusterNodeStates } from '../../redis/cluster-node-states';
import type { Principal } from '../auth/principal';
import type { ExpectedEventState } from '../../metrics/expected-event-state';
import { readRouteReport } from '../../routes/read-route-report';
import { routeQueueCounts } from '../../routes/route-queue-counts';
import type { Route } from '../../routes/routes-file';

export interface OverviewSources {
  readonly queues: ConsoleQueues;
  readonly history?: ConsoleHistory | undefined;
  /** The API budget left, where the worker stores it; undefined: not stored. */
  readonly remainingOf?:
    ((institution: string | undefined) => Promise<number | undefined>) | undefined;
  /** EXPECTED_EVENTS_FILE's rules as they stand (readExpectedEvents); undefined: no rules. */
  readonly expected?: (() => Promise<readonly ExpectedEventState[]>) | undefined;
  readonly now: () => Date;
}

const HOUR_MS = 3600_000;

/**
 * Everything the overview page shows, read from Redis (and PostgreSQL's health when history is
 * on). A section Redis cannot give now is left empty and named in `unreadable`: the page still
 * answers, and says Redis is down.
 */
export async function readOverview(
  sources: OverviewSources,
  principal: Principal,
): Promise<Overview> {
  const now = sources.now().getTime();
  const visible = sources.queues.events.filter(
    (one) => principal.institution === undefined || one.institution === principal.institution,
  );
  const { connection } = sources.queues;
  const unreadable: OverviewSection[] = [];
  const section = <T>(name: OverviewSection, read: () => Promise<T[]>): Promise<T[]> =>
    whileRedisAnswers(connection, name, read).catch((error: unknown) => {
      if (toHttpError(error).code !== 'redis_down') throw error;
      unreadable.push(name);
      return [];
    });
  const [redis, postgresql, redisNodes, institutions, routes, expected] = await Promise.all([
    connection.status !== 'ready'
      ? ('down' as const)
      : connection.ping().then(
          () => 'up' as const,
          () => 'down' as const,
        ),
    postgresHealth(sources.history),
    readClusterNodeStates(connection).catch(() => []),
    section('institutions', () =>
      Promise.all(visible.map((one) => institutionRow(sources, one, now))),
    ),
    section('routes', () =>
      Promise.all(sources.queues.routes.map((one) => routeRow(sources, one, principal))),
    ),
    section('expected events', () => expectedOf(sources, principal)),
  ]);
  return {
    at: new Date(now).toISOString(),
    history: sources.history === undefined ? 'off' : 'on',
    health: { redis, postgresql, ...(redisNodes === undefined ? {} : { redisNodes }) },
    unreadable: OverviewSection.options.filter((name) => unreadable.includes(name)),
    institutions,
    routes,
    expected,
  };
}

async function expectedOf(
  sources: OverviewSources,
  principal: Principal,
): Promise<ExpectedEventView[]> {
  const states = (await sources.expected?.()) ?? [];
  return states
    .filter(
      (one) => principal.institution === undefined || one.institution === principal.institution,
    )
    .map((one) => ({
      institution: one.institution,
      rule: one.rule,
      everyHours: one.everyHours,
      lastSeenAt: one.lastSeenAt === undefined ? null : one.lastSeenAt.toISOString(),
      ageSeconds: Math.round(one.ageSeconds),
      late: one.late,
    }));
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
  const newestJob = newest.find((job) => job.timestamp === lastAdded);
  // Jobs added within the hour: those finished in it plus those not finished yet (near enough).
  const pending = (counts.wait ?? 0) + (counts.prioritized ?? 0) + (counts.active ?? 0);
  const oldest = oldestWaiting[0]?.timestamp;
  return {
    institution: institution ?? null,
    eventInstitution: newestJob === undefined ? null : jobInstitution(newestJob),
    queue: queue.name,
    lastEventAt: isoOrNull(lastAdded),
    lastEventAgoSeconds: lastAdded === 0 ? null : Math.round((now - lastAdded) / 1000),
    eventsPerMinuteLastHour: Math.round(((finishedLastHour + pending) / 60) * 100) / 100,
    apiCallsRemaining: remaining ?? null,
    waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0),
    delayed: counts.delayed ?? 0,
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
async function finishedSince(client: RedisClient, queue: Queue, since: number): Promise<number> {
  const [completed, failed] = await Promise.all([
    client.zcount(queue.keys.completed ?? '', since, '+inf'),
    client.zcount(queue.keys.failed ?? '', since, '+inf'),
  ]);
  return completed + failed;
}

/** A route's row: its state and attempt figures from readRouteReport, its queue's counts. */
async function routeRow(
  sources: OverviewSources,
  { route, queue }: { route: Route; queue: Queue },
  principal: Principal,
): Promise<RouteOverview> {
  const [{ figures, state }, counts] = await Promise.all([
    readRouteReport(sources.queues.connection, queue, route, {
      institution: principal.institution,
    }),
    routeQueueCounts(queue),
  ]);
  return {
    route: route.name,
    ...state,
    waiting: counts.waiting,
    delayed: counts.delayed,
    failed: counts.failed,
    deliveredLastHour: figures.lastHour.delivered,
    retryingLastHour: figures.lastHour.retrying,
    failedLastHour: figures.lastHour.failed,
    p95DeliveryMs: figures.p95DeliveryMs,
    lastResult: figures.last?.result ?? null,
    lastResultAt: figures.last?.at ?? null,
    lastError: figures.last?.error ?? null,
  };
}
