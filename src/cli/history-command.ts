import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { historyForgetCommand } from './history-forget-command';
import { keepCliRefusals } from './keep-cli-refusals';
import { historyMaintenanceCommand } from './history-maintenance-command';
import { historyRecoverCommand } from './history-recover-command';
import { historyReplayCommand } from './history-replay-command';
import { historySearchCommand } from './history-search-command';
import { historySetAsideCommand } from './history-set-aside-command';
import { historyShowCommand } from './history-show-command';

/** `history search|show|replay|recover|forget|set-aside|migrate|prune …` (docs/history.md): one CLI entry. */
export async function historyCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'search':
      return historySearchCommand(rest, io);
    case 'show':
      return historyShowCommand(rest, io);
    // A refused replay, recovery or forget is kept in the audit (keep-cli-refusals.ts).
    case 'replay':
      return keepCliRefusals(io, 'replay', rest, historyReplayCommand);
    case 'recover':
      return keepCliRefusals(io, 'recover', rest, historyRecoverCommand);
    case 'forget':
      return keepCliRefusals(io, 'forget', rest, historyForgetCommand);
    case 'set-aside':
      return historySetAsideCommand(rest, io);
    case 'migrate':
    case 'prune':
      return historyMaintenanceCommand(sub, rest, io);
    default:
      throw new CliUsageError(
        'history: search, show, replay, recover, forget, set-aside, migrate or prune',
      );
  }
}
