import { z } from 'zod';

const time = z.iso.datetime({ offset: true });
const list = z.array(z.string()).default([]);

/**
 * One event as the history keeps it, prepared on the worker's side (history-row-of.ts): its
 * identifiers (user ids as keyed hashes), and its body in clear (non-patron), sealed (patron) or
 * absent (HISTORY_BODIES).
 */
export const EventRecord = z.object({
  type: z.literal('event'),
  patron: z.boolean(),
  receivedAt: time,
  institution: z.string(),
  eventId: z.string(),
  action: z.string(),
  eventCode: z.string().optional(),
  platformTime: z.string().optional(),
  userKeys: list,
  barcodes: list,
  mmsIds: list,
  loanIds: list,
  requestIds: list,
  jobInstanceIds: list,
  body: z.record(z.string(), z.unknown()).optional(),
  /** Base64 of the sealed body (history-keys.ts). */
  bodySealed: z.string().optional(),
});
export type EventRecord = z.infer<typeof EventRecord>;

export const AttemptOutcome = z.enum(['delivered', 'retrying', 'failed', 'skipped']);
export type AttemptOutcome = z.infer<typeof AttemptOutcome>;

/** One delivery attempt of one route; its error text has the event's personal values masked. */
export const AttemptRecord = z.object({
  type: z.literal('attempt'),
  patron: z.boolean(),
  eventReceivedAt: time,
  institution: z.string(),
  eventId: z.string(),
  route: z.string(),
  jobId: z.string().optional(),
  attempt: z.number().int(),
  startedAt: time,
  endedAt: time,
  outcome: AttemptOutcome,
  status: z.number().int().optional(),
  error: z.string().optional(),
  durationMs: z.number().int().nonnegative(),
});
export type AttemptRecord = z.infer<typeof AttemptRecord>;

/**
 * What one event's handler came to, for an action whose handler entry states it (outcomeOf): the
 * action, its subject's id and name as the entry reads them, the outcome, its counters, the files
 * it stored, or the error. Kept in the `job_outcomes` table (subject id and name in its
 * `job_instance_id` and `job_name` columns).
 */
export const OutcomeRecord = z.object({
  type: z.literal('outcome'),
  eventReceivedAt: time,
  institution: z.string(),
  eventId: z.string(),
  action: z.string(),
  subjectId: z.string().optional(),
  subjectName: z.string().optional(),
  outcome: z.string(),
  counters: z.record(z.string(), z.unknown()).optional(),
  files: z
    .array(z.object({ path: z.string(), bytes: z.number(), records: z.number().optional() }))
    .optional(),
  error: z.string().optional(),
  recordedAt: time,
});
export type OutcomeRecord = z.infer<typeof OutcomeRecord>;

/** How one run of an event's job ended (the first two end the event's processing). */
export const StepOutcome = z.enum(['completed', 'failed', 'retrying', 'rate-limited', 'aborted']);
export type StepOutcome = z.infer<typeof StepOutcome>;

/**
 * What the worker did with an event's job, at its own clock (docs/history.md, "The journey"):
 * `taken` when a run started — with the time the job was queued (BullMQ's `timestamp`, the add)
 * and the time it was taken (`processedOn`) — and `ended` when that run ended: `completed` or
 * `failed` (no attempt left) end the event's processing; `retrying`, `rate-limited` and
 * `aborted` give the job back to be taken again. No free text: nothing a person could be in.
 */
export const StepRecord = z.object({
  type: z.literal('step'),
  step: z.enum(['taken', 'ended']),
  patron: z.boolean(),
  eventReceivedAt: time,
  institution: z.string(),
  eventId: z.string(),
  jobId: z.string().optional(),
  /** The run of the job (BullMQ's attemptsStarted): 1, then one more for each take. */
  run: z.number().int(),
  at: time,
  /** taken: when the job was added to the event queue. */
  queuedAt: time.optional(),
  /** ended: how the run ended. */
  outcome: StepOutcome.optional(),
});
export type StepRecord = z.infer<typeof StepRecord>;

/** An operator's action: pause, resume, replay, forget — who, when, what, how many. */
export const AuditRecord = z.object({
  type: z.literal('audit'),
  at: time,
  actor: z.string(),
  action: z.string(),
  target: z.string().optional(),
  details: z.record(z.string(), z.unknown()).default({}),
  count: z.number().int().optional(),
});
export type AuditRecord = z.infer<typeof AuditRecord>;

/** One entry of the history outbox stream (field `r`, JSON). */
export const HistoryRecord = z.discriminatedUnion('type', [
  EventRecord,
  AttemptRecord,
  OutcomeRecord,
  StepRecord,
  AuditRecord,
]);
export type HistoryRecord = z.infer<typeof HistoryRecord>;
