import { z } from 'zod';
import { ROUTE_STATES } from '../../routes/route-state';

/**
 * What the console reads and shows: the overview, a route's view, a failed job, an action's
 * result. The pages render them and the JSON API answers with them (api/api-schemas.ts).
 */
const when = z.iso.datetime().nullable();

export const InstitutionOverview = z.object({
  institution: z
    .string()
    .nullable()
    .describe('null: the single institution (no INSTITUTIONS_FILE)'),
  eventInstitution: z
    .string()
    .nullable()
    .describe(
      'the institution code the newest event carries (institution.value); null: no event yet',
    ),
  queue: z.string(),
  lastEventAt: when.describe('newest event job added to its queue'),
  lastEventAgoSeconds: z.number().nullable(),
  eventsPerMinuteLastHour: z.number(),
  apiCallsRemaining: z
    .number()
    .nullable()
    .describe('the last X-Svc-Api-Remaining the worker got; null: none yet'),
  waiting: z.number().int(),
  delayed: z.number().int().describe('jobs waiting for their retry (backoff) or a rate limit'),
  failed: z.number().int(),
  oldestWaitingAgeSeconds: z.number().nullable(),
});

export type InstitutionOverview = z.infer<typeof InstitutionOverview>;

const RouteState = z
  .enum(ROUTE_STATES)
  .describe(
    'docs/routing.md "A route\'s state": paused, circuit open, failing, rate-limited, running',
  );

/** The run of failed attempts since the route's last delivery (every institution's). */
const Failing = z
  .object({
    since: z.iso.datetime(),
    attempts: z.number().int(),
    lastError: z.string(),
  })
  .nullable()
  .describe('null: the latest attempt delivered (or none yet)');

/** What the route's state is and why: read with the figures, from the one source (route-figures.ts). */
const RouteStateFields = {
  state: RouteState,
  failing: Failing,
  circuitOpenUntil: when.describe('when the open circuit lets its next probe go'),
};

const Outcome = z.enum(['delivered', 'retrying', 'failed']);

export const RouteOverview = z.object({
  route: z.string(),
  ...RouteStateFields,
  waiting: z.number().int(),
  delayed: z.number().int().describe('deliveries waiting for their retry (backoff)'),
  failed: z.number().int().describe('failed deliveries kept in the route queue (replayable)'),
  deliveredLastHour: z.number().int().describe('attempts delivered, inline and queued'),
  retryingLastHour: z.number().int().describe('failed attempts that will be retried'),
  failedLastHour: z.number().int().describe('failed attempts with no retry left'),
  p95DeliveryMs: z.number().nullable().describe('duration of the last hour’s delivered attempts'),
  lastResult: Outcome.nullable(),
  lastResultAt: when,
  lastError: z.string().nullable(),
});

export type RouteOverview = z.infer<typeof RouteOverview>;

export const ExpectedEventView = z.object({
  institution: z.string().describe("'' for the single institution"),
  rule: z.string().describe('job_end:<job> or kind:<kind> (EXPECTED_EVENTS_FILE)'),
  everyHours: z.number(),
  lastSeenAt: when.describe('null: none since the rule is watched'),
  ageSeconds: z.number(),
  late: z.boolean(),
});
export type ExpectedEventView = z.infer<typeof ExpectedEventView>;

/** A part of the overview that could not be read now (its source does not answer). */
export const OverviewSection = z.enum(['institutions', 'routes', 'expected events']);
export type OverviewSection = z.infer<typeof OverviewSection>;

/** One node of a Redis Cluster as the cluster sees it (src/redis/cluster-node-states.ts). */
export const RedisNodeView = z.object({
  node: z.string().describe('host:port, as the cluster announces it'),
  role: z.enum(['primary', 'replica']),
  state: z.enum(['ok', 'unreachable', 'failed']),
  slots: z.number().int().nonnegative().describe('slots a primary serves; 0 for a replica'),
});
export type RedisNodeView = z.infer<typeof RedisNodeView>;

export const Overview = z.object({
  at: z.iso.datetime(),
  history: z.enum(['on', 'off']),
  health: z.object({
    redis: z.enum(['up', 'down']),
    postgresql: z.enum(['up', 'down', 'not configured']),
    redisNodes: z
      .array(RedisNodeView)
      .optional()
      .describe('on a Redis Cluster only: its nodes, as the cluster sees them'),
  }),
  unreadable: z.array(OverviewSection).describe('sections left empty because Redis did not answer'),
  institutions: z.array(InstitutionOverview),
  routes: z.array(RouteOverview),
  expected: z.array(ExpectedEventView).describe('EXPECTED_EVENTS_FILE rules; [] without it'),
});
export type Overview = z.infer<typeof Overview>;

export const RouteFailure = z.object({
  jobId: z
    .string()
    .nullable()
    .describe('null: an inline attempt (no route job); replay it by its event id'),
  eventId: z.string().nullable(),
  institution: z.string().nullable(),
  attemptsMade: z.number().int().describe('the number of this attempt'),
  outcome: z.enum(['retrying', 'failed']),
  failedAt: when,
  reason: z.string(),
});
export type RouteFailure = z.infer<typeof RouteFailure>;

export const RouteView = z.object({
  name: z.string(),
  destination: z.object({
    kind: z.string(),
    target: z.string().describe('credentials and ${VAR} values of the routes file shown as ***'),
  }),
  match: z.object({
    action: z.array(z.string()).optional(),
    event: z.array(z.string()).optional(),
    institution: z.array(z.string()).optional(),
  }),
  retry: z.object({ attempts: z.number().int(), backoffMs: z.number().int() }),
  ratePerSecond: z.number().nullable(),
  concurrency: z.number().int(),
  ...RouteStateFields,
  counts: z
    .object({
      waiting: z.number().int(),
      active: z.number().int(),
      delayed: z.number().int(),
      failed: z.number().int(),
    })
    .describe('the route queue now'),
  lastHour: z
    .object({
      delivered: z.number().int(),
      retrying: z.number().int(),
      failed: z.number().int(),
    })
    .describe('attempts of the last hour, inline and queued'),
  p95DeliveryMs: z.number().nullable(),
  recentFailures: z.array(RouteFailure),
});
export type RouteView = z.infer<typeof RouteView>;

export const ActionResult = z.object({
  done: z.boolean(),
  message: z.string(),
  count: z.number().int().optional(),
});
export type ActionResult = z.infer<typeof ActionResult>;

export const FailedJob = z.object({
  jobId: z.string(),
  institution: z.string().nullable().describe("the queue's institution; null: the single one"),
  eventInstitution: z
    .string()
    .nullable()
    .describe('the institution code the event carries (institution.value)'),
  queue: z.string(),
  eventId: z.string().nullable(),
  action: z.string(),
  attemptsMade: z.number().int(),
  attempts: z.number().int(),
  failedAt: when,
  reason: z.string(),
});
export type FailedJob = z.infer<typeof FailedJob>;
