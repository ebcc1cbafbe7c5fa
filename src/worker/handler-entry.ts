import type { WorkerConfig } from '../config';
import type { SvcClient } from '@svcws/client';
import type { RegisteredHandler } from './handler-registry';

/** What a kind room's handler is built from: the configuration and client of one event queue. */
export interface HandlerDeps {
  /** The queue's configuration; with INSTITUTIONS_FILE, the member's own settings applied. */
  readonly config: WorkerConfig;
  /** The API client of the queue's institution. */
  readonly client: SvcClient;
}

/**
 * One entry of the handler list (src/processes/handler-entries.ts): each kind room exports one,
 * so the generic worker runs handlers without knowing any kind.
 */
export interface HandlerEntry {
  /** The canonical action the handler takes; `create` must return a handler of this action. */
  readonly action: string;
  create(deps: HandlerDeps): RegisteredHandler;
}
