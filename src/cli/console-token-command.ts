import { randomBytes } from 'node:crypto';
import { ConsoleRole, sha256Hex } from '../console';
import { InstitutionCode } from '../institutions/institutions-file';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { parseCommandArgs } from './parse-command-args';

/**
 * `console-token --role viewer|operator [--institution <code>] [--name <name>]`: a new console
 * token (32 random bytes) and the CONSOLE_TOKENS_FILE block that admits it, whole (`tokens:` and
 * the entry) so that it can start a new file. Only the entry's hash goes on disk; the token is
 * printed once, here, and nowhere else.
 */
export function consoleTokenCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('console-token', args, {
    role: { type: 'string' },
    institution: { type: 'string' },
    name: { type: 'string' },
  });
  if (positionals.length > 0) {
    throw new CliUsageError(`console-token: unexpected argument '${positionals[0] ?? ''}'`);
  }
  const role = ConsoleRole.safeParse(values.role);
  if (!role.success) throw new CliUsageError('console-token: --role viewer or --role operator');
  if (values.institution !== undefined && !InstitutionCode.safeParse(values.institution).success) {
    throw new CliUsageError('console-token: --institution takes an institution code');
  }
  const token = randomBytes(32).toString('base64url');
  const line = {
    name: values.name ?? `${role.data}-${new Date().toISOString().slice(0, 10)}`,
    sha256: sha256Hex(token),
    role: role.data,
    ...(values.institution === undefined ? {} : { institution: values.institution }),
  };
  io.out(`token: ${token}`);
  io.out('Give the token to its holder. The CONSOLE_TOKENS_FILE lines that admit it (a new file:');
  io.out('paste both; an existing one: add the entry under its `tokens:`):');
  io.out('');
  // A flow mapping of JSON strings: valid YAML whatever the name holds.
  const fields = Object.entries(line).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  io.out('tokens:');
  io.out(`  - { ${fields.join(', ')} }`);
  return Promise.resolve(0);
}
