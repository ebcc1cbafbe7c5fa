import { randomUUID } from 'node:crypto';
import { createSvcClient } from '@svcws/client';
import { loadConfig, WorkerConfig } from '../config';
import { bodyCapsOf } from '../body-caps-of';
import type { InstitutionEntry } from '../institutions/institutions-file';
import { institutionQueueName } from '../institutions/institution-queue-name';
import { loadInstitutionsFile } from '../institutions/load-institutions-file';
import { createLogger } from '../logger';
import { reconcileJobEnds } from '../worker/job-end/reconcile-job-ends';
import type { ReconcileReport } from '../worker/job-end/reconcile-job-ends';
import { summaryOf, windowStart } from '../worker/job-end/reconcile-schedule';
import { reconcileTargetOf } from '../worker/job-end/start-reconciliation';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { openCliRedis } from './open-cli-redis';
import { parseCommandArgs } from './parse-command-args';
import { cliLogger } from './cli-logger';
import { historyActor } from './history-actor';
import { logOperatorAction } from '../operations/operator-action';

/**
 * `reconcile [--since <ISO time>] [--dry-run] [--json]`: one reconciliation run now, as the worker's
 * schedule makes it (docs/worker.md, "Reconciliation"), over every institution: the job_ends the
 * platform never delivered are queued (or, with --dry-run, listed only: nothing is queued or
 * claimed). Without --since the window starts where the schedule's last complete run ended, less
 * RECONCILE_OVERLAP_MINUTES; the schedule's mark is not moved. Exit 1 when a run stopped early.
 */
export async function reconcileCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('reconcile', args, {
    since: { type: 'string' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (positionals.length > 0) {
    throw new CliUsageError(`reconcile: unexpected argument '${positionals[0] ?? ''}'`);
  }
  const since = sinceOption(values.since);
  const config = loadConfig(WorkerConfig, io.env);
  const redis = await openCliRedis(io.env);
  const logger = createLogger({ level: 'silent', name: 'reconcile' });
  const until = new Date();
  const runId = `reconcile-cli-${randomUUID()}`;
  const reports: ReconcileReport[] = [];
  try {
    for (const member of membersOf(config, io.env)) {
      const queue = institutionQueue(config, member, logger);
      const { target, close } = reconcileTargetOf(redis.connection, queue);
      try {
        const from =
          since ??
          (await windowStart(redis.connection, queue.queueName, {
            until,
            everyMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
            overlapMs: config.RECONCILE_OVERLAP_MINUTES * 60_000,
            maxBackMs: config.DEDUP_WINDOW_HOURS * 3_600_000,
          }));
        const dryRun = values['dry-run'] === true;
        reports.push(await reconcileJobEnds(target, { since: from, until, dryRun, runId }));
      } finally {
        await close();
      }
    }
  } finally {
    await redis.close();
  }
  if (values['dry-run'] !== true) {
    logOperatorAction(cliLogger(io), 'cli', {
      actor: historyActor(),
      action: 'reconcile',
      target: 'job_end',
      outcome: reports.every((report) => report.complete) ? 'done' : 'stopped',
      count: reports.reduce((sum, report) => sum + report.recovered.length, 0),
    });
  }
  printReports(reports, io, { json: values.json === true, dryRun: values['dry-run'] === true });
  return reports.every((report) => report.complete) ? 0 : 1;
}

function sinceOption(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw new CliUsageError(
      'reconcile: --since takes an ISO time (2024-11-06 or 2024-11-06T10:00Z)',
    );
  }
  return date;
}

/** The members of INSTITUTIONS_FILE, or the single institution (undefined). */
function membersOf(
  config: WorkerConfig,
  env: CliIo['env'],
): readonly (InstitutionEntry | undefined)[] {
  if (config.INSTITUTIONS_FILE === undefined) return [undefined];
  return loadInstitutionsFile(config.INSTITUTIONS_FILE, env).institutions;
}

/** The institution's queue, client and settings, as the worker process builds them. */
function institutionQueue(
  config: WorkerConfig,
  member: InstitutionEntry | undefined,
  logger: ReturnType<typeof createLogger>,
) {
  const baseUrl = member?.baseUrl ?? config.SVC_BASE_URL;
  const apiKey = member?.apiKey ?? config.SVC_API_KEY;
  // config.ts requires both without INSTITUTIONS_FILE; the file requires both for a member.
  if (baseUrl === undefined || apiKey === undefined) throw new Error('no API key or base address');
  const remainingFloor = member?.remainingFloor ?? config.SVC_REMAINING_FLOOR;
  return {
    institution: member?.code ?? config.INSTITUTION_CODE,
    queueName:
      member === undefined
        ? config.QUEUE_NAME
        : institutionQueueName(config.QUEUE_NAME, member.code),
    config: {
      ...config,
      SVC_REMAINING_FLOOR: remainingFloor,
      RECONCILE_JOB_IDS: member?.reconcileJobIds ?? config.RECONCILE_JOB_IDS,
    },
    client: createSvcClient({
      baseUrl,
      apiKey,
      ratePerSecond: member?.ratePerSecond ?? config.SVC_RATE_PER_SECOND,
      timeoutMs: config.SVC_TIMEOUT_MS,
      maxRetries: config.SVC_MAX_RETRIES,
      remainingFloor,
      maxBodyBytes: bodyCapsOf(config),
    }),
    logger,
  };
}

function printReports(
  reports: readonly ReconcileReport[],
  io: CliIo,
  { json, dryRun }: { json: boolean; dryRun: boolean },
): void {
  if (json) {
    io.out(
      JSON.stringify(
        reports.map((report) => ({ ...summaryOf(report), dryRun, found: report.recovered })),
      ),
    );
    return;
  }
  for (const report of reports) {
    const name = report.institution ?? '(institution)';
    const verb = dryRun ? 'to queue (dry run: nothing queued)' : 'queued';
    io.out(
      `${name}: ${String(report.jobs.length)} jobs, ${String(report.apiCalls)} API calls, ` +
        `${String(report.finished)} finished instances, ${String(report.recovered.length)} job_end ${verb}` +
        (report.complete ? '' : `; stopped early: ${report.stoppedBecause ?? 'unknown'}`),
    );
    for (const found of report.recovered) {
      io.out(`  ${found.jobId} instance ${found.instanceId} → event ${found.eventId}`);
    }
  }
}
