import { EnvSchema } from '../config';
import { InstitutionCode } from '../institutions/institutions-file';
import { institutionQueueName } from '../institutions/institution-queue-name';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';

/** The commands that read one event queue: in a consortium, each member has its own. */
const QUEUE_COMMANDS: ReadonlySet<string> = new Set(['failed', 'show', 'replay']);

/**
 * `--institution <code>` anywhere on a queue command's line: the command runs on that member's
 * event queue (`<QUEUE_NAME>-inst-<code>`, as the listener and the worker name it with
 * INSTITUTIONS_FILE). Returns the arguments without the option and the io the command sees.
 */
export function forInstitution(
  command: string,
  args: readonly string[],
  io: CliIo,
): { args: string[]; io: CliIo } {
  const at = args.findIndex((arg) => arg === '--institution' || arg.startsWith('--institution='));
  // console-token's --institution names the token's scope, history's a filter: not a queue.
  if (at === -1 || command === 'console-token' || command === 'history') {
    return { args: [...args], io };
  }
  if (!QUEUE_COMMANDS.has(command)) {
    throw new CliUsageError(
      `${command}: --institution applies to ${[...QUEUE_COMMANDS].join(', ')}`,
    );
  }
  const arg = args[at] ?? '';
  const inline = arg.startsWith('--institution=');
  const code = inline ? arg.slice('--institution='.length) : args[at + 1];
  if (code === undefined || !InstitutionCode.safeParse(code).success) {
    throw new CliUsageError(
      `${command}: --institution takes an institution code (letters, digits, _ and -)`,
    );
  }
  const rest = [...args.slice(0, at), ...args.slice(at + (inline ? 1 : 2))];
  // The base name as the command itself would read it (default included); a bad one is left for
  // the command's own config check to name.
  const given = io.env.QUEUE_NAME === '' ? undefined : io.env.QUEUE_NAME;
  const parsed = EnvSchema.shape.QUEUE_NAME.safeParse(given);
  const base = parsed.success ? parsed.data : (given ?? '');
  return {
    args: rest,
    io: { ...io, env: { ...io.env, QUEUE_NAME: institutionQueueName(base, code) } },
  };
}
