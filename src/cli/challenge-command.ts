import { checkChallenge } from '../http/check-challenge';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { parseCommandArgs, positiveIntOption } from './parse-command-args';
import { listenerUrl, printableUrl } from './printable-url';

/** `challenge --url`: the check the platform makes when a listener is registered (spec §6.1). */
export async function challengeCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('challenge', args, {
    url: { type: 'string' },
    timeout: { type: 'string' },
  });
  if (positionals.length > 0) {
    throw new CliUsageError(`challenge: unexpected argument '${positionals[0] ?? ''}'`);
  }
  const url = listenerUrl('challenge', values.url);
  const timeoutMs = positiveIntOption('challenge', 'timeout', values.timeout, 10_000);
  const started = performance.now();
  const refusal = await checkChallenge(url.href, timeoutMs);
  const ms = Math.round(performance.now() - started);
  if (refusal === undefined) {
    io.out(`✓ ${printableUrl(url)} echoed the challenge as JSON in ${String(ms)} ms`);
    return 0;
  }
  io.err(`✗ ${printableUrl(url)}: ${refusal}`);
  return 1;
}
