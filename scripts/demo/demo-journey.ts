import { historyJourney } from '../../src/history';
import type { HistoryContext, JourneyStep } from '../../src/history';

/**
 * The event's journey as the history recorded it (docs/history.md): waits until the writer has
 * the event, its job_end outcome, the end of its processing and a delivered attempt of every
 * route, then one line per step.
 */
export async function demoJourney(
  context: HistoryContext,
  eventId: string,
  routes: readonly string[],
  timeoutMs: number,
): Promise<string[] | undefined> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const steps = await historyJourney(context, eventId);
    if (complete(steps, routes)) return steps.map(lineOf);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

function complete(steps: readonly JourneyStep[], routes: readonly string[]): boolean {
  const delivered = new Set(
    steps.flatMap((step) =>
      step.kind === 'attempt' && step.outcome === 'delivered' ? [step.route] : [],
    ),
  );
  return (
    steps.some((step) => step.kind === 'received') &&
    steps.some((step) => step.kind === 'outcome') &&
    steps.some((step) => step.kind === 'finished') &&
    routes.every((route) => delivered.has(route))
  );
}

function lineOf(step: JourneyStep): string {
  const at = step.at.slice(11, 23);
  switch (step.kind) {
    case 'received':
      return `${at}  received: ${[step.event.action, step.event.eventCode].filter(Boolean).join(' ')} from ${step.event.institution}`;
    case 'queued':
      return `${at}  queued by the ${step.by}`;
    case 'taken':
      return `${at}  taken by a worker (run ${String(step.run)})${step.endedAt === null ? ': no end recorded' : ''}`;
    case 'released':
      return `${at}  run ${String(step.run)} ended: ${step.outcome}, to be taken again`;
    case 'finished':
      return `${at}  finished: ${step.outcome}`;
    case 'attempt':
      return `${at}  route ${step.route}: attempt ${String(step.attempt)} ${step.outcome} in ${String(step.durationMs)} ms${step.error === null ? '' : ` (${step.error})`}`;
    case 'outcome':
      return `${at}  processed: job_end ${step.outcome}${filesOf(step.files)}${step.error === null ? '' : ` (${step.error})`}`;
  }
}

function filesOf(files: unknown): string {
  if (!Array.isArray(files)) return '';
  return files
    .map(
      (file: { path?: unknown; bytes?: unknown; records?: unknown }) =>
        ` → ${String(file.path)} (${String(file.records ?? '?')} records, ${String(file.bytes)} bytes)`,
    )
    .join('');
}
