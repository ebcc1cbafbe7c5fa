import type { Logger } from '../../logger';
import type { ActionResult } from './console-views';
import type { ConsoleHistory } from './console-history';
import type { Principal } from '../auth/principal';

/**
 * Runs one operator action and keeps who did what: in the history's audit trail when history is
 * on, else as a log line (`console action`). A refusal (role, scope, not found) is kept too.
 */
export async function recordAction(
  deps: { logger: Logger; history?: ConsoleHistory | undefined },
  principal: Principal,
  action: string,
  target: string,
  run: () => Promise<ActionResult>,
): Promise<ActionResult> {
  const record = (outcome: 'done' | 'refused' | 'failed', detail: string) => {
    const entry = {
      at: new Date(),
      actor: principal.name,
      role: principal.role,
      institution: principal.institution,
      action,
      target,
      outcome,
      detail,
    };
    deps.logger.info(
      {
        actor: entry.actor,
        role: entry.role,
        institution: entry.institution,
        action,
        target,
        outcome,
      },
      'console action',
    );
    return deps.history?.audit(entry).catch((error: unknown) => {
      deps.logger.error({ err: error, action, target }, 'audit record not kept');
    });
  };
  try {
    const result = await run();
    await record(result.done ? 'done' : 'failed', result.message);
    return result;
  } catch (error) {
    await record('refused', error instanceof Error ? error.message : String(error));
    throw error;
  }
}
