import type { ExpectedEvent } from './expected-events-file';
import type { ExpectedEventsOfQueue } from './expected-events-watch';

/**
 * Each event queue with the rules it is watched for: a rule naming an institution goes to that
 * institution's queue, one naming none to every queue. The worker (which notes the events) and
 * the console (which shows the rules' state) pair them alike.
 */
export function expectedWatchesOf(
  expected: readonly ExpectedEvent[],
  queues: readonly { institution: string | undefined; queueName: string }[],
): ExpectedEventsOfQueue[] {
  return queues.map(({ institution, queueName }) => ({
    institution: institution ?? '',
    queueName,
    rules: expected.filter(
      (rule) => rule.institution === undefined || rule.institution === institution,
    ),
  }));
}
