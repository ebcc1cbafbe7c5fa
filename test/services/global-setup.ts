import { installMissing } from '../../scripts/services/install-missing';
import { NEEDED_BY_TESTS, PRIVATE_SERVERS } from '../../scripts/services/service-table';
import { startPrivateServers } from '../../scripts/services/start-private-servers';
import type { PrivateServers } from '../../scripts/services/start-private-servers';
import { startNotingLines } from '../helpers/log-reference/held-line-shapes';
import { openLoadLane } from '../helpers/load-lane';

/** Where the teardown finds the servers (globalSetup and globalTeardown share one process). */
export const SERVERS_KEY = Symbol.for('svcws.test.privateServers');

const say = (line: string): void => {
  process.stdout.write(`[test services] ${line}\n`);
};

/**
 * Before any test: installs what is missing (root on Debian) or stops with one message listing
 * it, then starts a private instance of every server in the table on free loopback ports and
 * hands their addresses to the tests (TEST_REDIS_URL, …), which the test workers inherit.
 * REDIS_URL is set as well, so a product process a test starts never falls back on the default port.
 * The lines of the processes the tests start are noted, and held to docs/logs.md at the end. The
 * suites that hold a steady load take turns (test/helpers/load-lane.ts).
 */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  installMissing(NEEDED_BY_TESTS, say);
  const servers = await startPrivateServers(PRIVATE_SERVERS);
  (globalThis as Record<symbol, PrivateServers>)[SERVERS_KEY] = servers;
  Object.assign(process.env, servers.env, { REDIS_URL: servers.env.TEST_REDIS_URL });
  startNotingLines();
  openLoadLane();
  say(
    `${String(PRIVATE_SERVERS.length)} private servers ready in ${String(Date.now() - started)} ms`,
  );
}
