import type { WorkerConfig } from '../config';
import type { Logger } from '../logger';
import type { SvcClient } from '@svcws/client';
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

/** What one run of a handler came to, as the history keeps it (its job outcome). */
export interface HandlerOutcome {
  readonly outcome: string;
  readonly counters?: Record<string, unknown>;
  readonly files?: readonly { path: string; bytes: number; records?: number }[];
}

/**
 * One entry of the handler list (src/worker/handler-entries.ts): each kind room exports one,
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
  /**
   * Work once at the worker's start, beside the event workers (never delaying them): it must not
   * throw; a failure is its own to log.
   */
  readonly startUp?: (deps: StartUpDeps) => Promise<void>;
}
