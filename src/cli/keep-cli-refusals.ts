import { parseArgs } from 'node:util';
import { HistoryConfig, loadConfig } from '../config';
import { deriveHistoryKeys, openHistoryDatabase, writeAudit } from '../history';
import { messageOf } from '../message-of';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { historyActor } from './history-actor';
import { cliLogger } from './cli-logger';
import { logOperatorAction } from '../operations/operator-action';

type HistoryAction = 'replay' | 'recover' | 'forget';

/**
 * Runs a history action's command; when it is refused (CliUsageError: its command line, the
 * route's recovery lock, REPLAY_MAX_RUNNING), keeps the refusal — a line on stderr and an audit row —
 * before the refusal goes on to be printed.
 */
export async function keepCliRefusals(
  io: CliIo,
  action: HistoryAction,
  args: string[],
  command: (args: string[], io: CliIo) => Promise<number>,
): Promise<number> {
  try {
    return await command(args, io);
  } catch (error) {
    if (error instanceof CliUsageError) await keepCliRefusal(io, action, args, error);
    throw error;
  }
}

/**
 * One line (actor as the audit names it, action, target, reason's code), and with history on one
 * audit row marked refused, written straight away: the command has the database at hand, and an
 * operator looking at the audit next expects to find it. A forget's person is its keyed hash.
 */
async function keepCliRefusal(
  io: CliIo,
  action: HistoryAction,
  args: string[],
  error: CliUsageError,
): Promise<void> {
  const actor = historyActor();
  const asked = sentOptions(args);
  const target = action === 'forget' ? 'person' : (asked.route ?? '-');
  io.err(`refused: history ${action} of ${target} by ${actor} (${error.code})`);
  logOperatorAction(cliLogger(io), 'cli', {
    actor,
    action,
    target,
    outcome: 'refused',
    reason: error.code,
  });
  const config = loadConfig(HistoryConfig, io.env);
  if (config.DATABASE_URL === undefined || config.HISTORY_KEY === undefined) return;
  const person =
    action === 'forget' && asked.user !== undefined
      ? deriveHistoryKeys(config.HISTORY_KEY).hashPerson(asked.user)
      : undefined;
  try {
    const db = await openHistoryDatabase({
      url: config.DATABASE_URL,
      schema: config.HISTORY_SCHEMA,
      migrate: false,
    });
    if (db === undefined) return;
    try {
      await writeAudit(db, {
        at: new Date(),
        actor,
        action,
        target: person ?? target,
        details: { outcome: 'refused', reason: error.code, detail: error.message },
      });
    } finally {
      await db.close();
    }
  } catch (failure) {
    io.err(`the refusal was not kept in the audit: ${messageOf(failure)}`);
  }
}

/** `--route` and `--user` as given, whatever else the command line holds (right or wrong). */
function sentOptions(args: string[]): { route?: string | undefined; user?: string | undefined } {
  try {
    const { values } = parseArgs({
      args,
      options: { route: { type: 'string' }, user: { type: 'string' } },
      strict: false,
      allowPositionals: true,
    });
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    return { route: text(values.route), user: text(values.user) };
  } catch {
    return {};
  }
}
