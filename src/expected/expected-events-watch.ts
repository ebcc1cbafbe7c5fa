import type { Redis } from 'ioredis';
import { isRecord } from '../is-record';
import type { Logger } from '../logger';
import type { RunStage } from '../worker/event-run';
import { jobIdOfInstance } from '../worker/job-end/job-id-of-instance';
import type { ExpectedEvent } from './expected-events-file';
import { ruleName } from './expected-events-file';

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
export function expectedEventsStage({
  redis,
  watch,
  logger,
}: {
  redis: Redis;
  watch: ExpectedEventsOfQueue;
  logger: Logger;
}): RunStage | undefined {
  if (watch.rules.length === 0) return undefined;
  const now = String(Date.now());
  const pipeline = redis.pipeline();
  for (const rule of watch.rules)
    pipeline.hsetnx(expectedSinceKey(watch.queueName), ruleName(rule), now);
  void pipeline.exec().catch(() => undefined);
  return async (run, next) => {
    const met = watch.rules.filter((rule) => meets(rule, run.action, run.job.data));
    if (met.length > 0) {
      const fields = met.flatMap((rule) => [ruleName(rule), String(Date.now())]);
      await redis.hset(expectedLastKey(watch.queueName), ...fields).catch((error: unknown) => {
        logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'expected event not noted',
        );
      });
    }
    return next();
  };
}

/** Whether an event (action, data as queued) meets a rule. */
export function meets(rule: ExpectedEvent, action: string, data: unknown): boolean {
  if (rule.kind !== undefined) return action === rule.kind;
  if (action !== 'job_end' || rule.jobEnd === undefined) return false;
  const subject = isRecord(data) && isRecord(data.job_instance) ? data.job_instance : undefined;
  if (subject === undefined) return false;
  const wanted = rule.jobEnd.toLowerCase();
  const info = isRecord(subject.job_info) ? subject.job_info : {};
  const jobId = jobIdOfInstance({
    job_info: { id: typeof info.id === 'string' ? info.id : undefined },
    link: typeof subject.link === 'string' ? subject.link : undefined,
  });
  const jobName = typeof info.name === 'string' ? info.name : undefined;
  const instanceName = typeof subject.name === 'string' ? subject.name.toLowerCase() : '';
  // Without job_info, the instance's name starts with the job's: `Import MARC records - 11/06/…`.
  return (
    jobId?.toLowerCase() === wanted ||
    jobName?.toLowerCase() === wanted ||
    instanceName.startsWith(`${wanted} - `)
  );
}
