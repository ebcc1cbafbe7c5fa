import type { RedisClient } from '../redis/redis-client';
import type { Logger } from '../logger';
import type { RunStage } from '../worker/event-run';
import type { HandlerEntry } from '../worker/handler-entry';
import type { ExpectedEvent } from './expected-events-file';
import { expectedNameOf, ruleName } from './expected-events-file';
import { errField } from '../err-field';

/** The rules of one institution's event queue. */
export interface ExpectedEventsOfQueue {
  /** The institution's code ('' for a single institution without INSTITUTION_CODE). */
  readonly institution: string;
  readonly queueName: string;
  readonly rules: readonly ExpectedEvent[];
}

/** Where the last matching event of each rule is kept (ms since the epoch, by rule name). */
export function expectedLastKey(queueName: string): string {
  return `${queueName}:expected-last`;
}

/** Since when each rule is watched: a rule never met is late once this is `everyHours` old. */
export function expectedSinceKey(queueName: string): string {
  return `${queueName}:expected-since`;
}

/**
 * Notes the time of every event that meets a rule, in Redis (so the whole fleet's events count,
 * and a restart forgets nothing), and marks when each rule started to be watched. Only an event
 * that meets a rule costs a write; the others pass untouched. A write that fails is logged and
 * never fails the event.
 */
export function expectedEventsStage(options: {
  redis: RedisClient;
  watch: ExpectedEventsOfQueue;
  logger: Logger;
  /** The handler list: a rule that expects an event by name asks its action's entry. */
  entries: readonly HandlerEntry[];
}): RunStage | undefined {
  const { redis, watch, logger, entries } = options;
  if (watch.rules.length === 0) return undefined;
  const now = String(Date.now());
  const pipeline = redis.pipeline();
  for (const rule of watch.rules)
    pipeline.hsetnx(expectedSinceKey(watch.queueName), ruleName(rule), now);
  void pipeline.exec().catch(() => undefined);
  return async (run, next) => {
    const met = watch.rules.filter((rule) => meets(rule, run.action, run.job.data, entries));
    if (met.length > 0) {
      const fields = met.flatMap((rule) => [ruleName(rule), String(Date.now())]);
      await redis.hset(expectedLastKey(watch.queueName), ...fields).catch((error: unknown) => {
        logger.warn({ err: errField(error) }, 'expected event not noted');
      });
    }
    return next();
  };
}

/**
 * Whether an event (action, data as queued) meets a rule: by its action, or by a name that the
 * entry of its action says the event bears (`expectedBy`); an action without it meets no such rule.
 */
export function meets(
  rule: ExpectedEvent,
  action: string,
  data: unknown,
  entries: readonly HandlerEntry[],
): boolean {
  if (rule.kind !== undefined) return action === rule.kind;
  const name = expectedNameOf(rule);
  const entry = entries.find((one) => one.action === action);
  return name !== undefined && entry?.expectedBy?.(data, name) === true;
}
