import type { HandlerEntry } from '../worker/handler-entry';
import { jobEndHandlerEntry } from '../worker/job-end/job-end-handler-entry';

/**
 * The handler list: one entry per kind room (docs/worker.md). An action without an entry is
 * completed without work by the handler registry.
 */
export const handlerEntries: readonly HandlerEntry[] = [jobEndHandlerEntry];
