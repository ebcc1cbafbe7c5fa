import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PrivateServerKind, RunningServer, ServerStartContext } from './server-kind';

export interface PrivateServers {
  /** Each server's variable (TEST_REDIS_URL, …) and its address. */
  readonly env: Readonly<Record<string, string>>;
  /** Stops every server and removes the directory they ran in. */
  stop(): Promise<void>;
}

/**
 * Starts `kinds` at once, each on free loopback ports in a directory of its own under one
 * temporary directory. If one fails, the others are stopped and the error names it.
 */
export async function startPrivateServers(
  kinds: readonly PrivateServerKind[],
): Promise<PrivateServers> {
  const root = await mkdtemp(path.join(tmpdir(), 'svcws-servers-'));
  const unprivileged = process.getuid?.() === 0 ? unprivilegedUser() : undefined;
  // The unprivileged user must pass through to its own directory (each server's is 0700).
  if (unprivileged !== undefined) await chmod(root, 0o711);
  const started = await Promise.allSettled(
    kinds.map(async (kind) => {
      const dir = await mkdtemp(path.join(root, `${kind.name}-`));
      const context: ServerStartContext = { dir, unprivileged };
      return { kind, server: await kind.start(context) };
    }),
  );
  const running: { kind: PrivateServerKind; server: RunningServer }[] = [];
  const failures: string[] = [];
  for (const result of started) {
    if (result.status === 'fulfilled') running.push(result.value);
    else
      failures.push(result.reason instanceof Error ? result.reason.message : String(result.reason));
  }
  const stop = async (): Promise<void> => {
    await Promise.all(running.map(({ server }) => server.stop()));
    await rm(root, { recursive: true, force: true });
  };
  if (failures.length > 0) {
    await stop();
    throw new Error(`the private servers did not start:\n${failures.join('\n')}`);
  }
  const env = Object.fromEntries(running.map(({ kind, server }) => [kind.variable, server.url]));
  return { env, stop };
}

/** `postgres` (Debian's package makes it), else `nobody`: a server that refuses root runs as it. */
function unprivilegedUser(): { uid: number; gid: number } | undefined {
  const passwd = readFileSync('/etc/passwd', 'utf8').split('\n');
  for (const name of ['postgres', 'nobody']) {
    const fields = passwd.find((line) => line.startsWith(`${name}:`))?.split(':');
    if (fields?.[2] !== undefined && fields[3] !== undefined) {
      return { uid: Number(fields[2]), gid: Number(fields[3]) };
    }
  }
  return undefined;
}
