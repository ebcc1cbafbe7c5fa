import type { RedisClient } from '../redis/redis-client';
import { keepOperatorAction } from '../operations/operator-action';
import type { OperatorAction } from '../operations/operator-action';
import type { CliIo } from './cli-io';
import { cliLogger } from './cli-logger';
import { historyActor } from './history-actor';
import { recordCliAudit } from './record-cli-audit';

/**
 * A CLI action kept both ways through keepOperatorAction: its `cli action` line, and its audit
 * record on the history's outbox (history on), with the audit's own details and count (a pause's
 * row keeps its waiting jobs in its details, as it always has).
 */
export async function keepCliAction(
  io: CliIo,
  queues: { readonly connection: RedisClient; readonly queueName: string },
  line: Omit<OperatorAction, 'actor'>,
  row: { readonly details: Record<string, unknown>; readonly count?: number },
): Promise<void> {
  const audit = () =>
    recordCliAudit(io.env, queues, { action: line.action, target: line.target, ...row });
  await keepOperatorAction(
    { logger: cliLogger(io), surface: 'cli', audit },
    { actor: historyActor(), ...line },
  );
}
