import type { RedisClient } from '../redis/redis-client';
import { HistoryConfig, loadConfig } from '../config';
import { createHistoryRecorder, historyStreamKey } from '../history';
import type { AuditInput } from '../history';
import type { CliIo } from './cli-io';
import { historyActor } from './history-actor';

/**
 * An operator's action into the history's audit (docs/history.md) when history is on: one record
 * on the outbox the workers' history writer drains, so the command needs no PostgreSQL and never
 * fails for want of it. History off (no DATABASE_URL): nothing.
 */
export async function recordCliAudit(
  env: CliIo['env'],
  queues: { readonly connection: RedisClient; readonly queueName: string },
  input: Omit<AuditInput, 'actor'>,
): Promise<boolean> {
  const config = loadConfig(HistoryConfig, env);
  if (config.DATABASE_URL === undefined || config.HISTORY_KEY === undefined) return false;
  const recorder = createHistoryRecorder({
    redis: queues.connection,
    streamKey: historyStreamKey(queues.queueName),
    historyKey: config.HISTORY_KEY,
    bodies: config.HISTORY_BODIES,
    maxBacklog: config.HISTORY_BACKLOG_MAX,
  });
  return recorder.audit({ actor: historyActor(), ...input });
}
