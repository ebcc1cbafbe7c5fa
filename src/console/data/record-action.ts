import { HttpError } from '../../http/http-error';
import type { Logger } from '../../logger';
import type { ActionResult } from './console-views';
import type { AuditRecord, ConsoleHistory } from './console-history';
import type { Principal } from '../auth/principal';
import { keepOperatorAction } from '../../operations/operator-action';

export interface ActionDeps {
  readonly logger: Logger;
  readonly history?: ConsoleHistory | undefined;
}

/** What was asked and how it ended, as the log line and the audit row keep it. */
type ActionEntry = Pick<AuditRecord, 'action' | 'target' | 'outcome' | 'detail' | 'reason'> & {
  /** A person the action names (a forget's): kept as its keyed hash, never in the log. */
  readonly person?: string | undefined;
  /** How many it touched (the action's result's `count`). */
  readonly count?: number | undefined;
};

/**
 * Keeps one operator action: a log line (`console action`: a warning when refused, naming the
 * reason's code) and, when history is on, a row in its audit trail.
 */
async function keepAction(
  deps: ActionDeps,
  principal: Principal,
  entry: ActionEntry,
): Promise<void> {
  const { action, target, outcome, reason, count } = entry;
  const who = { actor: principal.name, role: principal.role, institution: principal.institution };
  const { history } = deps;
  await keepOperatorAction(
    {
      logger: deps.logger,
      surface: 'console',
      audit:
        history === undefined
          ? undefined
          : () => history.audit({ at: new Date(), ...who, ...entry }),
    },
    { ...who, action, target, outcome, reason, count },
  );
}

/** A refusal's reason: the console's own code (`forbidden_role`, `invalid_request`, …). */
function reasonOf(error: unknown): string {
  return error instanceof HttpError ? error.code : 'internal';
}

/**
 * Runs one operator action and keeps who did what: in the history's audit trail when history is
 * on, and as a log line (`console action`). A refusal (role, scope, not found) is kept too.
 */
export async function recordAction(
  deps: ActionDeps,
  principal: Principal,
  action: string,
  target: string,
  run: () => Promise<ActionResult>,
): Promise<ActionResult> {
  try {
    const result = await run();
    const outcome = result.done ? 'done' : 'failed';
    await keepAction(deps, principal, {
      action,
      target,
      outcome,
      detail: result.message,
      count: result.count,
    });
    return result;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const reason = reasonOf(error);
    await keepAction(deps, principal, { action, target, outcome: 'refused', detail, reason });
    throw error;
  }
}

function sentField(body: unknown, field: string): string | undefined {
  const value = (body as Record<string, unknown> | null | undefined)?.[field];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Keeps a refused history action (replay, recovery, forget), from the JSON API or a page's form:
 * its target is the route asked for (`-` without one), or for a forget the person asked for (as
 * its keyed hash in the audit, `person` in the log).
 */
export function keepRefusal(deps: ActionDeps, action: 'replay' | 'recover' | 'forget') {
  return (principal: Principal, body: unknown, error: unknown): Promise<void> => {
    // A blank person is none (the forget itself refuses it): no keyed hash of a blank is kept.
    const user = action === 'forget' ? sentField(body, 'user') : undefined;
    const person = user !== undefined && user.trim() !== '' ? user : undefined;
    const target = action === 'forget' ? 'person' : (sentField(body, 'route') ?? '-');
    const detail = error instanceof Error ? error.message : String(error);
    return keepAction(deps, principal, {
      action,
      target,
      person,
      outcome: 'refused',
      detail,
      reason: reasonOf(error),
    });
  };
}
