import type { PrivateServers } from '../../scripts/services/start-private-servers';
import { SERVERS_KEY } from './global-setup';

/** Stops the private servers the set-up started and removes their directories. */
export default async function globalTeardown(): Promise<void> {
  const servers = (globalThis as Record<symbol, PrivateServers | undefined>)[SERVERS_KEY];
  await servers?.stop();
}
