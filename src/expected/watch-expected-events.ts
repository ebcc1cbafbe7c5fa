import type { RedisClient } from '../redis/redis-client';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger';
import { registerExpectedEventsMetrics } from '../metrics/expected-events-metrics';
import type { RunStage } from '../worker/event-run';
import type { HandlerEntry } from '../worker/handler-entry';
import { loadExpectedEventsFile } from './expected-events-file';
import { expectedWatchesOf } from './expected-watches-of';
import { expectedEventsStage } from './expected-events-watch';
import { readExpectedEvents } from './read-expected-events';

/**
 * EXPECTED_EVENTS_FILE in the worker (docs/operations.md, "Expected events"): read at start-up,
 * each rule given to the institutions it names (all when it names none), the events that meet
 * them noted as they are taken, and the rules' state exported on the worker's metrics. Returns
 * one queue's stage of the event run (event-run-stages.ts); without a rule for it, none.
 */
export function watchExpectedEvents(options: {
  readonly file: string | undefined;
  readonly connection: RedisClient;
  readonly logger: Logger;
  readonly registry?: Registry | undefined;
  readonly queues: readonly { institution: string | undefined; queueName: string }[];
  /** The handler list, whose entries say which events a rule's name means (`expectedBy`). */
  readonly entries: readonly HandlerEntry[];
}): (queueName: string) => RunStage | undefined {
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
  if (expected.length === 0) return () => undefined;
  return (queueName) => {
    const watch = watches.find((one) => one.queueName === queueName);
    if (watch === undefined) return undefined;
    return expectedEventsStage({
      redis: options.connection,
      watch,
      logger: options.logger,
      entries: options.entries,
    });
  };
}
