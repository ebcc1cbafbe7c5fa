import { postgresServer } from '../../scripts/services/servers/postgres';
import { startPrivateServers } from '../../scripts/services/start-private-servers';

export interface BenchPostgres {
  readonly url: string;
  readonly private: boolean;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL of the bench's own (the tests' private server, scripts/services/servers/postgres.ts:
 * its own cluster and port, run as an unprivileged user when the bench runs as root), so the
 * history case neither needs nor disturbs the machine's. With BENCH_DATABASE_URL, that server.
 */
export async function benchPostgres(): Promise<BenchPostgres> {
  const given = process.env.BENCH_DATABASE_URL;
  if (given !== undefined) return { url: given, private: false, stop: async () => undefined };
  const servers = await startPrivateServers([postgresServer]);
  const url = servers.env[postgresServer.variable];
  if (url === undefined) {
    await servers.stop();
    throw new Error('the private PostgreSQL started without an address');
  }
  return { url, private: true, stop: servers.stop };
}
