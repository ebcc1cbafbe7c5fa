import type { RedisClient } from '../redis/redis-client';
import type { Registry } from 'prom-client';
import type { WorkerConfig } from '../config';
import type { Logger } from '../logger';
import type { SvcClient } from '@svcws/client';
import type { CanonicalEvent } from '../events/canonical-event';
import type { RunStage } from './event-run';
import type { RegisteredHandler } from './handler-registry';

/** What a kind room's handler is built from: the configuration and client of one event queue. */
export interface HandlerDeps {
  /** The queue's configuration; with INSTITUTIONS_FILE, the member's own settings applied. */
  readonly config: WorkerConfig;
  /** The API client of the queue's institution. */
  readonly client: SvcClient;
}

/** What a kind room's start-up work is given: the worker's own configuration and logger. */
export interface StartUpDeps {
  readonly config: WorkerConfig;
  readonly logger: Logger;
}

/** One event queue of the worker: its institution, name, configuration, client and logger. */
export interface EventQueue {
  /** Its code: the member's, or INSTITUTION_CODE for the single institution. */
  readonly institution: string | undefined;
  /** QUEUE_NAME, or QUEUE_NAME-inst-<code> for a member of INSTITUTIONS_FILE. */
  readonly queueName: string;
  /** The queue's configuration; with INSTITUTIONS_FILE, the member's own settings applied. */
  readonly config: WorkerConfig;
  readonly client: SvcClient;
  readonly logger: Logger;
}

/** What a guard is given: the worker's Redis connection and the queue it guards. */
export interface GuardDeps {
  readonly connection: RedisClient;
  readonly queue: EventQueue;
}

/** What a kind room's background work is given: every event queue of the worker. */
export interface BackgroundDeps {
  /** The worker's own configuration. */
  readonly config: WorkerConfig;
  readonly connection: RedisClient;
  readonly queues: readonly EventQueue[];
  readonly logger: Logger;
  /** The worker's metrics registry, when it has one. */
  readonly registry?: Registry | undefined;
}

/** Background work that runs until the worker closes. */
export interface Closeable {
  close(): Promise<void>;
}

/** The subject an outcome is about, as its kind names it (an instance's id and name). */
export interface OutcomeSubject {
  readonly id?: string;
  readonly name?: string;
}

/** What one run of a handler came to, as the history keeps it (its outcome record). */
export interface HandlerOutcome {
  readonly outcome: string;
  readonly counters?: Record<string, unknown>;
  readonly files?: readonly { path: string; bytes: number; records?: number }[];
}

/**
 * One entry of the handler list (src/handlers/handler-entries.ts): each kind room exports one,
 * so the generic worker runs handlers without knowing any kind.
 */
export interface HandlerEntry {
  /** The canonical action the handler takes; `create` must return a handler of this action. */
  readonly action: string;
  create(deps: HandlerDeps): RegisteredHandler;
  /**
   * What a run's result came to, when the kind's outcome is worth keeping: with history on, it
   * is recorded after the handler (and the error once no attempt is left). Without it, nothing is.
   */
  readonly outcomeOf?: (result: unknown) => HandlerOutcome;
  /** The subject the outcome is about (with `outcomeOf`): the history keeps its id and name. */
  readonly subjectOf?: (event: CanonicalEvent) => OutcomeSubject;
  /**
   * Work once at the worker's start, beside the event workers (never delaying them): it must not
   * throw; a failure is its own to log.
   */
  readonly startUp?: (deps: StartUpDeps) => Promise<void>;
  /**
   * A stage of one queue's runs of this action only, before the journey and the steps
   * (event-run-stages.ts): a job it answers itself is neither routed nor recorded.
   */
  readonly guard?: (deps: GuardDeps) => RunStage;
  /**
   * Work that runs beside the event workers for as long as they do (a timer, a schedule), over
   * every queue; undefined when its configuration turns it off. Closed before the workers.
   */
  readonly background?: (deps: BackgroundDeps) => Closeable | undefined;
  /**
   * Whether an event of this action (its data as queued) is one that a rule of
   * EXPECTED_EVENTS_FILE naming `name` (lower case) expects; without it, only rules by kind see
   * this action's events.
   */
  readonly expectedBy?: (data: unknown, name: string) => boolean;
}
