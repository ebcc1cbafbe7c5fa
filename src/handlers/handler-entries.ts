import type { HandlerEntry } from '../worker/handler-entry';
import { jobEndHandlerEntry } from '../worker/job-end/job-end-handler-entry';

/**
 * The handler list: one entry per kind room (docs/worker.md), the one place that names them. It
 * stands above the worker and its kind rooms, so neither imports it: the worker itself
 * (create-worker.ts, the registry, the failure policy) knows no kind. An action without an entry
 * is completed without work by the handler registry.
 */
export const handlerEntries: readonly HandlerEntry[] = [jobEndHandlerEntry];
