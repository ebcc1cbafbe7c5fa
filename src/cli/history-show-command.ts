import { isRecord } from '../is-record';
import { historyJourney } from '../history';
import type { JourneyStep } from '../history';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { eventLine } from './history-search-command';
import { openCliHistory } from './open-cli-history';
import { parseCommandArgs } from './parse-command-args';

/** One step a line; an outcome is named by the event's action (`job_end  completed`). */
function stepLine(step: JourneyStep, action: string): string {
  switch (step.kind) {
    case 'received':
      return `${step.at}  received  ${eventLine(step.event)}`;
    case 'queued':
      return `${step.at}  queued  by the ${step.by}${step.jobId === null ? '' : `  job ${step.jobId}`}`;
    case 'taken':
      return `${step.at}  taken  run ${String(step.run)}${step.endedAt === null ? '  (no end recorded: still running, or its worker stopped)' : ''}`;
    case 'released':
      return `${step.at}  released  run ${String(step.run)} ${step.outcome}: to be taken again`;
    case 'finished':
      return `${step.at}  finished  ${step.outcome}`;
    case 'attempt': {
      const answer = [step.status === null ? '' : `status ${String(step.status)}`, step.error ?? '']
        .filter((part) => part !== '')
        .join(' ');
      return `${step.at}  route ${step.route}  attempt ${String(step.attempt)} (${step.path})  ${step.outcome}  ${String(step.durationMs)} ms  ${answer}`;
    }
    case 'outcome':
      return `${step.at}  ${action}  ${step.outcome}${step.error === null ? '' : `  ${step.error}`}${filesLines(step.files)}`;
  }
}

/** The event's action, from its arrival (every journey starts with it). */
function actionOf(steps: readonly JourneyStep[]): string {
  for (const step of steps) if (step.kind === 'received') return step.event.action;
  return 'outcome';
}

/** The records files a job_end stored, one indented line each: path, bytes, records. */
function filesLines(files: unknown): string {
  if (!Array.isArray(files)) return '';
  return (files as unknown[])
    .filter(isRecord)
    .map(
      (file) =>
        `\n    ${String(file.path)}  ${String(file.bytes)} bytes${file.records === undefined ? '' : `  ${String(file.records)} records`}`,
    )
    .join('');
}

/** `history show <event id> [--institution <code>] [--json]`: the event's journey. */
export async function historyShowCommand(args: string[], io: CliIo): Promise<number> {
  const command = 'history show';
  const { values, positionals } = parseCommandArgs(command, args, {
    institution: { type: 'string' },
    json: { type: 'boolean' },
  });
  const [eventId, ...rest] = positionals;
  if (eventId === undefined || rest.length > 0) {
    throw new CliUsageError(`${command}: give one event id`);
  }
  const history = await openCliHistory(io);
  if (history === undefined) return 1;
  try {
    const steps = await historyJourney(history, eventId, values.institution);
    if (values.json === true) io.out(JSON.stringify(steps));
    else for (const step of steps) io.out(stepLine(step, actionOf(steps)));
    if (steps.length === 0) {
      io.err(`No event ${eventId} in the history.`);
      return 1;
    }
    return 0;
  } finally {
    await history.db.close();
  }
}
