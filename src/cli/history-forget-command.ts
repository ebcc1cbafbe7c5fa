import { countOf } from '../count-of';
import { Queue } from 'bullmq';
import { createRejectedStore } from '../events/rejected-store';
import { forgetPerson, historyStreamKey } from '../history';
import type { ForgetReport } from '../history';
import { routeQueueName } from '../routes/route-queue-name';
import { EnvSchema, loadConfig } from '../config';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { historyActor } from './history-actor';
import { cliRoutes } from './open-route-queues';
import { openCliHistory } from './open-cli-history';
import { openCliRedis } from './open-cli-redis';
import { parseCommandArgs } from './parse-command-args';
import { cliLogger } from './cli-logger';
import { logOperatorAction } from '../operations/operator-action';

const ForgetConfig = EnvSchema.pick({
  REJECTED_MAX_COUNT: true,
  REJECTED_MAX_AGE_HOURS: true,
  ROUTES_FILE: true,
});

/**
 * `history forget --user <id> [--json]`: the person out of the history, its outbox, the event
 * queue's and route queues' completed and failed jobs and the rejected store; prints what it
 * removed where.
 */
export async function historyForgetCommand(args: string[], io: CliIo): Promise<number> {
  const command = 'history forget';
  const { values } = parseCommandArgs(command, args, {
    user: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.user === undefined || values.user.trim() === '') {
    throw new CliUsageError(`${command}: --user <id> is required`);
  }
  const config = loadConfig(ForgetConfig, io.env);
  const history = await openCliHistory(io);
  if (history === undefined) return 1;
  const redis = await openCliRedis(io.env);
  const queueName = redis.config.QUEUE_NAME;
  const routes = config.ROUTES_FILE === undefined ? [] : cliRoutes(io.env).routes;
  const queues = [queueName, ...routes.map((route) => routeQueueName(queueName, route.name))].map(
    (name) => new Queue(name, { connection: redis.connection }),
  );
  try {
    const report = await forgetPerson(
      {
        db: history.db,
        keys: history.keys,
        redis: redis.connection,
        streamKey: historyStreamKey(queueName),
        queues,
        rejected: createRejectedStore({
          redis: redis.connection,
          queueName,
          maxCount: config.REJECTED_MAX_COUNT,
          maxAgeHours: config.REJECTED_MAX_AGE_HOURS,
        }),
        actor: historyActor(),
      },
      values.user,
    );
    sayForgotten(io, report, values.json === true);
    return 0;
  } finally {
    for (const queue of queues) await queue.close();
    await redis.close();
    await history.db.close();
  }
}

/** The forget's `cli action` line, then what it removed where. */
function sayForgotten(io: CliIo, report: ForgetReport, json: boolean): void {
  // The person is named by nobody on the line: the audit row keeps their keyed hash.
  logOperatorAction(cliLogger(io), 'cli', {
    actor: historyActor(),
    action: 'forget',
    target: 'person',
    outcome: 'done',
    count: report.historyEvents,
  });
  if (json) io.out(JSON.stringify(report));
  else {
    io.out(
      `history: ${countOf(report.historyEvents, 'event')}, ${countOf(report.historyAttempts, 'attempt')}`,
    );
    io.out(`history outbox (not yet written): ${String(report.outboxRecords)} records`);
    for (const [name, count] of Object.entries(report.queueJobs)) {
      io.out(`queue ${name}: ${String(count)} completed or failed jobs`);
    }
    io.out(`rejected deliveries: ${String(report.rejected)}`);
    io.out('Destinations (the systems routes deliver to) are not reached: purge them there.');
  }
}
