import type { RedisClient } from '../redis/redis-client';
import type { CanonicalEvent } from '../events/canonical-event';
import { maskPersonalValues } from '../events/personal-fields';
import type { Logger } from '../logger';
import type { OutcomeSubject } from '../worker/handler-entry';
import { eventRecordOf, institutionOf, patronOf, receivedAtOf } from './event-record-of';
import type { HistoryBodies } from './history-bodies';
import { deriveHistoryKeys } from './history-keys';
import { createOutboxAppender } from './outbox-appender';
import type {
  AttemptOutcome,
  AuditRecord,
  HistoryRecord,
  OutcomeRecord,
  StepOutcome,
  StepRecord,
} from './history-record';

export interface HistoryRecorderOptions {
  /** The worker's own connection (commands are queued while it reconnects; never blocking). */
  readonly redis: RedisClient;
  /** The outbox stream the history writer drains (historyStreamKey). */
  readonly streamKey: string;
  /** HISTORY_KEY: user ids are hashed and patron bodies sealed before they reach Redis. */
  readonly historyKey: string;
  readonly bodies: HistoryBodies;
  /** HISTORY_BACKLOG_MAX: records waiting at most; a record past it is dropped and counted. */
  readonly maxBacklog: number;
  readonly logger?: Logger;
}

/** One delivery attempt of one route, as the route worker saw it. */
export interface AttemptInput {
  /** The event delivered (the route job's data): its id, institution, time and personal values. */
  readonly event: CanonicalEvent;
  readonly route: string;
  readonly jobId?: string;
  readonly attempt: number;
  readonly startedAt: Date;
  readonly endedAt: Date;
  readonly outcome: AttemptOutcome;
  readonly status?: number;
  readonly error?: string;
  readonly durationMs: number;
}

/** What one event's handler came to (outcome-stage.ts): its subject as its entry reads it. */
export interface OutcomeInput {
  readonly event: CanonicalEvent;
  readonly subject?: OutcomeSubject;
  readonly outcome: string;
  readonly counters?: Record<string, unknown>;
  readonly files?: readonly { path: string; bytes: number; records?: number }[];
  readonly error?: string;
}

/** One run of an event's job taken, or ended (journey-stage.ts). */
export interface StepInput {
  readonly event: CanonicalEvent;
  readonly step: 'taken' | 'ended';
  readonly jobId?: string;
  readonly run: number;
  readonly at: Date;
  /** taken: when the job was added to the queue (BullMQ's `timestamp`). */
  readonly queuedAt?: Date;
  /** ended: how the run ended. */
  readonly outcome?: StepOutcome;
}

export interface AuditInput {
  readonly actor: string;
  readonly action: string;
  readonly target?: string;
  readonly details?: Record<string, unknown>;
  readonly count?: number;
}

/**
 * What the worker calls. The records of one tick go to the outbox in one XADD (outbox-appender.ts);
 * a call resolves true once Redis has its record, false when it was dropped (backlog full, Redis unreachable): it never throws and never
 * waits for PostgreSQL, so history cannot delay or fail a delivery.
 */
export interface HistoryRecorder {
  event: (event: CanonicalEvent, receivedAt?: Date | string) => Promise<boolean>;
  attempt: (input: AttemptInput) => Promise<boolean>;
  outcome: (input: OutcomeInput) => Promise<boolean>;
  step: (input: StepInput) => Promise<boolean>;
  audit: (input: AuditInput) => Promise<boolean>;
  /** Records dropped by this recorder since it was made. */
  dropped: () => number;
}

export function createHistoryRecorder(options: HistoryRecorderOptions): HistoryRecorder {
  const { bodies } = options;
  const keys = deriveHistoryKeys(options.historyKey);
  let dropped = 0;
  const appendJson = createOutboxAppender({
    ...options,
    onDropped: (records) => {
      dropped += records;
    },
  });
  const append = (record: HistoryRecord): Promise<boolean> => appendJson(JSON.stringify(record));
  /**
   * A record made from an event that may not make one (a value JSON cannot hold, a time that is
   * no time): dropped, counted (svcws_history_dropped_total) and logged by its type and code only,
   * as a message may quote the event's values (a person's id). Never thrown at the worker.
   */
  const appendMade = async (event: CanonicalEvent, make: () => HistoryRecord): Promise<boolean> => {
    let text: string;
    try {
      text = JSON.stringify(make());
    } catch (error) {
      dropped += 1;
      options.logger?.error(
        { eventId: event.id, action: event.action, ...errorKindOf(error) },
        'history record could not be made: dropped',
      );
      return false;
    }
    return appendJson(text);
  };
  return {
    event: (event, receivedAt) =>
      appendMade(event, () => eventRecordOf(event, receivedAtOf(event, receivedAt), keys, bodies)),
    attempt: (input) => append(attemptRecordOf(input)),
    outcome: (input) => append(outcomeRecordOf(input)),
    step: (input) => appendMade(input.event, () => stepRecordOf(input)),
    audit: (input) => append(auditRecordOf(input)),
    dropped: () => dropped,
  };
}

/** Masks the event's personal values in a destination's answer (a URL may carry a user id). */
function masked(text: string | undefined, event: CanonicalEvent): string | undefined {
  return text === undefined ? undefined : maskPersonalValues(text, event).slice(0, 2000);
}

function attemptRecordOf(input: AttemptInput): HistoryRecord {
  const { event } = input;
  const error = masked(input.error, event);
  return {
    type: 'attempt',
    patron: patronOf(event),
    eventReceivedAt: receivedAtOf(event, input.startedAt).toISOString(),
    institution: institutionOf(event),
    eventId: event.id,
    route: input.route,
    ...(input.jobId === undefined ? {} : { jobId: input.jobId }),
    attempt: input.attempt,
    startedAt: input.startedAt.toISOString(),
    endedAt: input.endedAt.toISOString(),
    outcome: input.outcome,
    ...(input.status === undefined ? {} : { status: input.status }),
    ...(error === undefined ? {} : { error }),
    durationMs: Math.max(0, Math.round(input.durationMs)),
  };
}

function outcomeRecordOf(input: OutcomeInput): OutcomeRecord {
  const { event, subject } = input;
  return {
    type: 'outcome',
    eventReceivedAt: receivedAtOf(event, undefined).toISOString(),
    institution: institutionOf(event),
    eventId: event.id,
    action: event.action,
    ...(subject?.id === undefined ? {} : { subjectId: subject.id }),
    ...(subject?.name === undefined ? {} : { subjectName: subject.name }),
    outcome: input.outcome,
    ...(input.counters === undefined ? {} : { counters: input.counters }),
    ...(input.files === undefined ? {} : { files: [...input.files] }),
    ...(input.error === undefined ? {} : { error: input.error.slice(0, 2000) }),
    recordedAt: new Date().toISOString(),
  };
}

function stepRecordOf(input: StepInput): StepRecord {
  const { event } = input;
  return {
    type: 'step',
    step: input.step,
    patron: patronOf(event),
    eventReceivedAt: receivedAtOf(event, input.queuedAt).toISOString(),
    institution: institutionOf(event),
    eventId: event.id,
    ...(input.jobId === undefined ? {} : { jobId: input.jobId }),
    run: input.run,
    at: input.at.toISOString(),
    ...(input.queuedAt === undefined ? {} : { queuedAt: input.queuedAt.toISOString() }),
    ...(input.outcome === undefined ? {} : { outcome: input.outcome }),
  };
}

/** What a log line may say of an error about an event: its class and machine code. */
function errorKindOf(error: unknown): { errorType: string; code?: string } {
  const errorType = error instanceof Error ? error.constructor.name : typeof error;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? { errorType, code } : { errorType };
}

function auditRecordOf(input: AuditInput): AuditRecord {
  return {
    type: 'audit',
    at: new Date().toISOString(),
    actor: input.actor,
    action: input.action,
    ...(input.target === undefined ? {} : { target: input.target }),
    details: input.details ?? {},
    ...(input.count === undefined ? {} : { count: input.count }),
  };
}
