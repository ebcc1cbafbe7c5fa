import { z } from 'zod';
import { RejectedEntry } from '../../events/rejected-store';
import { RoutesRunEntry } from '../../routes/routes-run-registry';
import type { HistoryEventSummary, JourneyStep } from '../../history';
import { StepOutcome } from '../../history/history-record';
import type { EventJourney } from '../data/console-history';
import { FailedJob, RouteView } from '../data/console-views';

/**
 * The JSON API's shapes: the handlers answer through them and /api/v1/openapi.json is generated
 * from them (openapi-document.ts), so the document cannot drift from what is sent.
 */
export const ApiError = z
  .object({ error: z.string(), message: z.string() })
  .describe('401 unsigned, 403 role or scope, 404, 400 naming the field');

export const RouteList = z.object({ items: z.array(RouteView) });
/** GET /routes-run: the workers' registry in Redis (routes-run-registry.ts) beside the console's file. */
export const RoutesRun = z.object({
  workers: z
    .array(RoutesRunEntry)
    .describe('the workers alive now (refreshed within 35 s): the routes file each read, by hash'),
  hashes: z.array(z.string()).describe('the routes files’ sha256 the workers read'),
  consoleHash: z
    .string()
    .nullable()
    .describe('sha256 of the routes file the console read at its start; null: none or unreadable'),
  workersDisagree: z.boolean().describe('the workers read different routes files'),
  consoleDiffers: z
    .boolean()
    .describe('the workers agree on a routes file other than the one the console read'),
  unknownToConsole: z
    .array(z.object({ name: z.string(), workers: z.array(z.string()) }))
    .describe('routes some worker runs that the console’s file did not have at its start'),
  runByNoWorker: z
    .array(z.string())
    .describe('the console’s routes no worker runs now (empty while no worker is registered)'),
});
/** A viewer sees ref, time, status, reason, length and institution: what the bytes held is not. */
const RejectedSeen = RejectedEntry.extend({
  requestId: RejectedEntry.shape.requestId.optional().describe('operators only'),
  eventId: RejectedEntry.shape.eventId.describe('operators only'),
  contentType: RejectedEntry.shape.contentType.describe('operators only'),
});
export const RejectedList = z.object({ items: z.array(RejectedSeen) });
export const RejectedDetail = RejectedSeen.extend({
  text: z.string().optional().describe('the raw bytes as UTF-8 text (operators only)'),
});
export const FailedList = z.object({ items: z.array(FailedJob) });
export const FailedDetail = FailedJob.extend({
  data: z
    .unknown()
    .describe('the event; for viewers only the fields its kind knows to be safe, others masked'),
  stacktrace: z.array(z.string()),
});

/** `?institution=` on the failed-job calls: which member's event queue (a consortium). */
export const InstitutionQuery = z.object({ institution: z.string().optional() });

const filterText = z.string().optional();
/** GET /events: the CLI's filter names (`history search`); times ISO 8601, checked by the history. */
export const EventsQuery = z.strictObject({
  id: filterText.describe('event id'),
  user: filterText.describe('a patron id, card number or e-mail: matched by its keyed hash'),
  barcode: filterText,
  mms: filterText,
  loan: filterText,
  request: filterText,
  'job-instance': filterText,
  institution: filterText,
  action: filterText,
  event: filterText.describe('event code, e.g. LOAN_CREATED'),
  since: filterText.describe('ISO 8601 time'),
  until: filterText.describe('ISO 8601 time'),
  route: filterText.describe('with outcome: the latest attempt on this route ended so'),
  outcome: filterText.describe('delivered, failed, pending or skipped'),
  limit: filterText.describe('1 to 1000, default 50'),
  after: filterText.describe('the `next` of the page before'),
});
const EventSummary = z.object({
  institution: z.string(),
  eventId: z.string(),
  action: z.string(),
  eventCode: z.string().nullable(),
  platformTime: z.string().nullable(),
  receivedAt: z.string(),
  patron: z.boolean(),
  barcodes: z.array(z.string()),
  mmsIds: z.array(z.string()),
  loanIds: z.array(z.string()),
  requestIds: z.array(z.string()),
  jobInstanceIds: z.array(z.string()),
  hasBody: z.boolean(),
  recovered: z.boolean().describe('a job_end the reconciliation found again (meta.recovered)'),
}) satisfies z.ZodType<HistoryEventSummary>;
export const EventsPage = z.object({
  items: z.array(EventSummary),
  next: z.string().optional().describe('pass as `after` for the next page'),
});
const jobId = z.string().nullable();
const run = z
  .number()
  .int()
  .describe('1 for the first take; one more each time it was taken again');
/** One step of the journey, as the history reads it (src/history/history-journey.ts). */
const JourneyStepView = z.discriminatedUnion('kind', [
  z.object({ at: z.string(), kind: z.literal('received'), event: EventSummary }),
  z.object({
    at: z.string(),
    kind: z.literal('queued'),
    by: z.enum(['listener', 'reconciliation']),
    jobId,
  }),
  z.object({
    at: z.string(),
    kind: z.literal('taken'),
    jobId,
    run,
    endedAt: z.string().nullable().describe('null: no end recorded'),
  }),
  z.object({
    at: z.string(),
    kind: z.enum(['finished', 'released']),
    outcome: StepOutcome,
    jobId,
    run,
  }),
  z.object({
    at: z.string(),
    kind: z.literal('attempt'),
    route: z.string(),
    attempt: z.number().int(),
    outcome: z.string(),
    status: z.number().int().nullable(),
    error: z.string().nullable(),
    durationMs: z.number(),
    startedAt: z.string(),
    path: z.enum(['inline', 'queued']),
    jobId,
  }),
  z.object({
    at: z.string(),
    kind: z.literal('outcome'),
    outcome: z.string(),
    subjectId: z.string().nullable(),
    counters: z.unknown(),
    files: z.unknown(),
    error: z.string().nullable(),
  }),
]) satisfies z.ZodType<JourneyStep>;
/** The journey's shape is the history's (EventJourney): `satisfies` holds this schema to it. */
export const EventDetail = z.object({
  event: EventSummary,
  routes: z
    .array(z.string())
    .optional()
    .describe('operators: the routes that take the event (where it may be delivered again)'),
  body: z
    .unknown()
    .describe('the event as received, patron fields masked for viewers; null: not kept'),
  steps: z
    .array(JourneyStepView)
    .describe(
      'oldest first: received (the listener), queued (by, jobId), taken (run, endedAt: null when ' +
        'no end was recorded), each route attempt (path inline or queued, status, error, ' +
        'durationMs), outcome (what the handler came to: outcome, subjectId, files), released (a run that gave the job back: ' +
        'outcome) and finished (outcome completed or failed)',
    ),
}) satisfies z.ZodType<EventJourney>;
export const ReplayBody = z.object({
  route: z.string(),
  filters: z.record(z.string(), z.string()).optional().describe('as GET /events, no limit/after'),
  dryRun: z.boolean().optional().describe('default true: count and sample only'),
  ignoreRouteMatch: z
    .boolean()
    .optional()
    .describe(
      'default false: only the events the route takes (its match:, as its fan-out) are sent; ' +
        'true sends the others too, and the audit rows say ignoreRouteMatch',
    ),
});
export const ReplayRun = z.object({
  replayId: z.string(),
  kind: z.enum(['replay', 'recover']).describe('a replay by query, or a recovery'),
  route: z.string(),
  state: z
    .enum(['running', 'done', 'failed', 'stopped'])
    .describe('stopped: the console stopped (restart) before the end'),
  filters: z.record(z.string(), z.string()).describe('as the audit keeps them: no person’s id'),
  matched: z.number().int().nullable().describe('events matching; null while being counted'),
  more: z.boolean().describe('more events match than `matched` (the run stops at `atMost`)'),
  atMost: z.number().int().nullable().describe('the most events the run handles; null: all'),
  queued: z.number().int().describe('deliveries queued on the route so far'),
  skipped: z.number().int().describe('matching events whose body the history does not hold'),
  leftOut: z.number().int().describe('matching events the route does not take (its match:)'),
  ignoreRouteMatch: z.boolean().describe('sent the events the route does not take too'),
  startedAt: z.iso.datetime(),
  endedAt: z.iso.datetime().nullable(),
  errors: z.array(z.string()),
  actor: z.string(),
  institution: z.string().nullable().describe('the institution it was held to; null: all'),
});
export const ReplayAnswer = z.union([
  z.object({
    dryRun: z.literal(true),
    route: z.string(),
    ignoreRouteMatch: z.boolean(),
    count: z.number().int().describe('events matching the filters; with `more`: a floor'),
    more: z.boolean().describe('more events match than `count`'),
    routeCount: z.number().int().describe('of those, how many the route takes (its match:)'),
    leftOut: z
      .record(z.string(), z.number().int())
      .describe('events the route does not take, by action'),
    withoutBody: z.number().int().describe('events whose body is not kept: never sent'),
    sends: z.number().int().describe('how many a replay would send'),
    outsideRoute: z.number().int().describe('of those, how many the route does not take'),
    summary: z.string().describe('the dry run in words'),
    sample: z.array(EventSummary.extend({ routeTakes: z.boolean() })),
  }),
  ReplayRun.extend({ dryRun: z.literal(false) }).describe(
    '202 Accepted: the replay runs in the background; Location: /api/v1/replays/{replayId}',
  ),
]);
export const ForgetBody = z.object({ user: z.string() });
export const ForgetAnswer = z.object({
  personHash: z.string(),
  historyEvents: z.number().int(),
  historyAttempts: z.number().int(),
  outboxRecords: z.number().int(),
  queueJobs: z.record(z.string(), z.number().int()),
  rejected: z.number().int(),
});
export const AuditQuery = z.strictObject({
  actor: filterText,
  action: filterText,
  before: filterText.describe('the `next` of the page before'),
  limit: filterText.describe('1 to 500, default 50'),
});
export const AuditList = z.object({
  items: z.array(
    z.object({
      at: z.string(),
      actor: z.string(),
      action: z.string(),
      target: z.string().nullable(),
      details: z.record(z.string(), z.unknown()),
      count: z.number().int().nullable(),
    }),
  ),
  next: z.string().optional(),
});
export const RecoveryBody = z.object({
  route: z.string(),
  since: z.string().describe('ISO 8601 time: events received since then (within retention)'),
  until: z.string().optional().describe('ISO 8601 time, default now'),
  institution: z.string().optional(),
  dryRun: z.boolean().optional().describe('default true: count and sample only'),
});
const RecoveryCandidate = z.object({
  institution: z.string(),
  eventId: z.string(),
  action: z.string(),
  receivedAt: z.string(),
  failedAt: z.string().describe('the end of its last attempt on the route'),
  attempt: z.number().int(),
  status: z.number().int().nullable(),
  error: z.string().nullable().describe('as the history keeps it: personal values masked'),
});
export const RecoveryAnswer = z.union([
  z.object({
    dryRun: z.literal(true),
    route: z.string(),
    count: z
      .number()
      .int()
      .describe(
        'events that failed on the route and never succeeded since; with `more`: the cap (10,000)',
      ),
    more: z.boolean().describe('more than `count` events failed and never succeeded since'),
    routeCount: z
      .number()
      .int()
      .describe('of those, how many the route takes now (its match: and where:): what a run sends'),
    leftOut: z
      .record(z.string(), z.number().int())
      .describe('failed events the route no longer takes, by action: a run leaves them out'),
    withoutBody: z.number().int().describe('events whose body is not kept: never sent'),
    sends: z.number().int().describe('how many a run would send'),
    summary: z.string().describe('the dry run in words, as a replay’s'),
    sample: z.array(
      RecoveryCandidate.extend({
        routeTakes: z.boolean().describe('the route takes it now (false: left out)'),
      }),
    ),
  }),
  ReplayRun.extend({ dryRun: z.literal(false) }).describe(
    '202 Accepted: the recovery runs in the background; Location: /api/v1/recoveries/{replayId}',
  ),
]);
export const SetAsideQuery = z.strictObject({
  before: filterText.describe('the `next` of the page before'),
  limit: filterText.describe('1 to 500, default 50'),
});
export const SetAsideList = z.object({
  count: z.number().int().describe('records set aside (within the principal’s institution)'),
  items: z
    .array(
      z.object({
        recordId: z.string(),
        setAsideAt: z.string(),
        recordType: z.string(),
        patron: z.boolean(),
        institution: z.string(),
        eventId: z.string(),
        sqlstate: z.string(),
        reason: z.string(),
      }),
    )
    .describe('operators only (a viewer gets the count): never the record itself'),
  next: z.string().optional(),
});
