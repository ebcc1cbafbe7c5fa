import type { PrivateServers } from '../../scripts/services/start-private-servers';
import { holdNotedLines } from '../helpers/log-reference/held-line-shapes';
import { closeLoadLane } from '../helpers/load-lane';
import { SERVERS_KEY } from './global-setup';

/**
 * Stops the private servers the set-up started and removes their directories; then holds the
 * lines the tests' processes wrote to docs/logs.md's reference (docs/logs.md, "Reference"): a
 * message or field it does not name, or a field of another type, fails the run, naming each.
 */
export default async function globalTeardown(): Promise<void> {
  const servers = (globalThis as Record<symbol, PrivateServers | undefined>)[SERVERS_KEY];
  await servers?.stop();
  closeLoadLane();
  const held = holdNotedLines();
  process.stdout.write(`[test services] ${String(held)} line shapes held to docs/logs.md\n`);
}
