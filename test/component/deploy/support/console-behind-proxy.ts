import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startConsoleWithHistory } from '../../../helpers/console-with-history';
import type { ConsoleWithHistory } from '../../../helpers/console-with-history';

/** The single sign-on proxy's secret (CONSOLE_PROXY_SECRET) in the proxy tests. */
export const PROXY_SECRET = 'the-sso-proxy-secret-of-32-characters+';

/**
 * The console as docs/console.md sets it behind a proxy on the same host: the loopback is the
 * proxy whose X-Forwarded-For is believed, and the single sign-on one whose identity header is,
 * with PROXY_SECRET; `identities` are the roles file's (`{ identity, role, institution? }`).
 */
export async function startConsoleBehindProxy(
  identities: readonly { identity: string; role: string; institution?: string }[],
): Promise<ConsoleWithHistory> {
  const dir = await mkdtemp(join(tmpdir(), 'svcws-roles-'));
  const lines = identities.map(
    ({ identity, role, institution }) =>
      `  - { identity: ${identity}, role: ${role}${institution === undefined ? '' : `, institution: ${institution}`} }\n`,
  );
  await writeFile(join(dir, 'roles.yaml'), `identities:\n${lines.join('')}`);
  const running = await startConsoleWithHistory({
    env: {
      CONSOLE_TRUSTED_PROXIES: '127.0.0.1',
      CONSOLE_TRUSTED_PROXY: '127.0.0.1',
      CONSOLE_PROXY_SECRET: PROXY_SECRET,
      CONSOLE_ROLES_FILE: join(dir, 'roles.yaml'),
    },
  });
  return {
    ...running,
    close: async () => {
      await running.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
