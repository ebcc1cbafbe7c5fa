import { z } from 'zod';

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
  queue: z.string(),
  lastEventAt: when.describe('newest event job added to its queue'),
  lastEventAgoSeconds: z.number().nullable(),
  eventsPerMinuteLastHour: z.number(),
  apiCallsRemaining: z.number().nullable().describe('null: the worker stores no budget here'),
  waiting: z.number().int(),
  failed: z.number().int(),
  oldestWaitingAgeSeconds: z.number().nullable(),
});

export type InstitutionOverview = z.infer<typeof InstitutionOverview>;

const RouteState = z.enum(['running', 'paused', 'circuit open']);

export const RouteOverview = z.object({
  route: z.string(),
  state: RouteState,
  waiting: z.number().int(),
  failed: z.number().int(),
  deliveredLastHour: z.number().int(),
  failedLastHour: z.number().int(),
  p95DeliveryMs: z.number().nullable().describe('processing time of the last hour’s deliveries'),
  lastResult: z.enum(['delivered', 'failed']).nullable(),
  lastResultAt: when,
});

export type RouteOverview = z.infer<typeof RouteOverview>;

export const Overview = z.object({
  at: z.iso.datetime(),
  history: z.enum(['on', 'off']),
  health: z.object({
    redis: z.enum(['up', 'down']),
    postgresql: z.enum(['up', 'down', 'not configured']),
  }),
  institutions: z.array(InstitutionOverview),
  routes: z.array(RouteOverview),
});
export type Overview = z.infer<typeof Overview>;

export const RouteFailure = z.object({
  jobId: z.string(),
  eventId: z.string().nullable(),
  institution: z.string().nullable(),
  attemptsMade: z.number().int(),
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
  state: RouteState,
  counts: z.object({
    waiting: z.number().int(),
    active: z.number().int(),
    delayed: z.number().int(),
    failed: z.number().int(),
    delivered: z.number().int(),
  }),
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
  institution: z.string().nullable(),
  queue: z.string(),
  eventId: z.string().nullable(),
  action: z.string(),
  attemptsMade: z.number().int(),
  attempts: z.number().int(),
  failedAt: when,
  reason: z.string(),
});
export type FailedJob = z.infer<typeof FailedJob>;
