import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { CliUsageError } from './cli-usage-error';
import { messageOf } from '../message-of';

type Options = NonNullable<ParseArgsConfig['options']>;

/** What a command reads back: single string or boolean options (no `multiple`), and positionals. */
export interface CommandArgs<O extends Options> {
  values: { [K in keyof O]?: O[K] extends { type: 'boolean' } ? boolean : string };
  positionals: string[];
}

/**
 * node:util parseArgs in strict mode, its errors turned into usage errors that name the command:
 * `failed: Unknown option '--limt'`.
 */
export function parseCommandArgs<O extends Options>(
  command: string,
  args: string[],
  options: O,
): CommandArgs<O> {
  try {
    const { values, positionals } = parseArgs({
      args,
      options,
      allowPositionals: true,
      strict: true,
    });
    return { values: values as CommandArgs<O>['values'], positionals };
  } catch (error) {
    const message = messageOf(error);
    // parseArgs suggests `--` for positionals that start with a dash; keep only the first sentence.
    throw new CliUsageError(`${command}: ${message.split('. ')[0] ?? message}`);
  }
}

/** A whole number from an option, or a usage error naming the option. */
export function positiveIntOption(
  command: string,
  name: string,
  value: string | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new CliUsageError(`${command}: --${name} must be a whole number of at least 1`);
  }
  return Number(value);
}
