import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger';
import { registerExpectedEventsMetrics } from '../metrics/expected-events-metrics';
import type { HandlerEntry } from '../worker/handler-entry';
import type { Dispatch } from '../worker/handler-registry';
import { loadExpectedEventsFile } from './expected-events-file';
import { expectedWatchesOf } from './expected-watches-of';
import { withExpectedEvents } from './expected-events-watch';
import { readExpectedEvents } from './read-expected-events';

/**
 * EXPECTED_EVENTS_FILE in the worker (docs/operations.md, "Expected events"): read at start-up,
 * each rule given to the institutions it names (all when it names none), the events that meet
 * them noted as they are taken, and the rules' state exported on the worker's metrics. Returns
 * what wraps one queue's dispatch; without a rule, the dispatch as it is.
 */
export function watchExpectedEvents(options: {
  readonly file: string | undefined;
  readonly connection: Redis;
  readonly logger: Logger;
  readonly registry?: Registry | undefined;
  readonly queues: readonly { institution: string | undefined; queueName: string }[];
  /** The handler list, whose entries say which events a rule's name means (`expectedBy`). */
  readonly entries: readonly HandlerEntry[];
}): (queueName: string, dispatch: Dispatch) => Dispatch {
  // Without the file the metrics are declared all the same, with no series: the alert's
  // metrics exist on every worker (and its rule is checked against them).
  const { expected } =
    options.file === undefined ? { expected: [] } : loadExpectedEventsFile(options.file);
  const watches = expectedWatchesOf(expected, options.queues);
  if (options.registry !== undefined) {
    registerExpectedEventsMetrics(options.registry, () =>
      readExpectedEvents(options.connection, watches),
    );
  }
  if (expected.length === 0) return (_queueName, dispatch) => dispatch;
  return (queueName, dispatch) => {
    const watch = watches.find((one) => one.queueName === queueName);
    if (watch === undefined) return dispatch;
    return withExpectedEvents(dispatch, {
      redis: options.connection,
      watch,
      logger: options.logger,
      entries: options.entries,
    });
  };
}
