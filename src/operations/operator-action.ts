import type { Logger } from '../logger';
import { errField } from '../err-field';

/** Where an operator acted from: the line's message is `cli action` or `console action`. */
export type OperatorSurface = 'cli' | 'console';

const MESSAGE = { cli: 'cli action', console: 'console action' } as const;

/**
 * One operator action (docs/logs.md, "Operator actions"): who, what, on what, how it ended and
 * how many it touched. The same words as its audit row (docs/history.md).
 */
export interface OperatorAction {
  /** As the audit names them: `cli:<login>`, a console identity. */
  readonly actor: string;
  /** `pause`, `resume`, `replay`, `recover`, `forget`, `reconcile`, `set-aside`, … */
  readonly action: string;
  /** `route indexer`, a job, `person` (never the person: their id is not logged). */
  readonly target: string;
  readonly outcome: 'done' | 'failed' | 'refused' | 'stopped';
  /** How many events, jobs or records it touched; absent when it touched none by nature. */
  readonly count?: number | undefined;
  /** A refusal's code (`forbidden_role`, `run_limit`, …). */
  readonly reason?: string | undefined;
  /** The console's: the actor's role, and the one institution their token is scoped to. */
  readonly role?: string | undefined;
  readonly institution?: string | undefined;
}

/** The action as its log line says it: a warning when refused, info otherwise. */
export function logOperatorAction(
  logger: Pick<Logger, 'info' | 'warn'>,
  surface: OperatorSurface,
  action: OperatorAction,
): void {
  // `operatorAction` on the line: `action` is an event's kind on every other line (docs/logs.md).
  const { action: operatorAction, ...rest } = action;
  const line = Object.fromEntries(
    Object.entries({ ...rest, operatorAction }).filter(([, value]) => value !== undefined),
  );
  if (action.outcome === 'refused') logger.warn(line, MESSAGE[surface]);
  else logger.info(line, MESSAGE[surface]);
}

/**
 * One operator action kept both ways, the one path the CLI and the console take: its log line,
 * then its audit row through `audit` (history on; its failure is logged, never thrown: the
 * action itself is done).
 */
export async function keepOperatorAction(
  deps: {
    readonly logger: Logger;
    readonly surface: OperatorSurface;
    readonly audit?: ((action: OperatorAction) => Promise<unknown>) | undefined;
  },
  action: OperatorAction,
): Promise<void> {
  logOperatorAction(deps.logger, deps.surface, action);
  await deps.audit?.(action).catch((error: unknown) => {
    deps.logger.error(
      { err: errField(error), operatorAction: action.action, target: action.target },
      'audit record not kept',
    );
  });
}
