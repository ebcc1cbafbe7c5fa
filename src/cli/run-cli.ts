import { challengeCommand } from './challenge-command';
import { consoleTokenCommand } from './console-token-command';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { failedCommand } from './failed-command';
import { forInstitution } from './for-institution';
import { historyCommand } from './history-command';
import { messageOf } from '../message-of';
import { reconcileCommand } from './reconcile-command';
import { rejectedCommand } from './rejected-command';
import { replayCommand } from './replay-command';
import { routesCommand } from './routes-command';
import { sendTestEventCommand } from './send-test-event-command';
import { showCommand } from './show-command';
import { USAGE_TEXT } from './usage-text';

type Command = (args: string[], io: CliIo) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  failed: failedCommand,
  show: showCommand,
  replay: replayCommand,
  rejected: rejectedCommand,
  'send-test-event': sendTestEventCommand,
  challenge: challengeCommand,
  routes: routesCommand,
  history: historyCommand,
  'console-token': consoleTokenCommand,
  reconcile: reconcileCommand,
};

/**
 * `npm run events -- <command>`: runs one command and resolves with the exit status — 0 done,
 * 1 the command failed, 2 the command line is wrong. Secrets given as options never reach output.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    (name === undefined ? io.err : io.out)(USAGE_TEXT);
    return name === undefined ? 2 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    io.err(`Unknown command '${name}'. Commands: ${Object.keys(COMMANDS).join(', ')}.`);
    io.err('`npm run events -- help` shows their options.');
    return 2;
  }
  try {
    const scoped = forInstitution(name, args, io);
    return await command(scoped.args, scoped.io);
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.err(error.message);
      io.err('`npm run events -- help` shows the options.');
      return 2;
    }
    // ConfigError names keys only; other messages here are ours (no secret is put in them).
    io.err(messageOf(error));
    return 1;
  }
}
