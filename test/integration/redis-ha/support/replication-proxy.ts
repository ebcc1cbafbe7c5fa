import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface ReplicationProxy {
  port: number;
  /** Holds every byte of the replicas' links from now on (connections stay open); clients flow. */
  holdReplication: () => void;
  close: () => Promise<void>;
}

/**
 * A TCP proxy in front of the primary that everyone reaches it through — clients, sentinels,
 * replicas — so Sentinel sees nothing to correct in the replica's configuration, and that can
 * hold back the replication links alone: a link is one whose client side says REPLCONF or PSYNC.
 * Held bytes are dropped when the primary goes: what they carried never reaches a replica.
 */
export async function startReplicationProxy(target: {
  host: string;
  port: number;
}): Promise<ReplicationProxy> {
  let holding = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    let replication = false;
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    for (const [from, to, fromClient] of [
      [client, upstream, true],
      [upstream, client, false],
    ] as const) {
      from.on('data', (chunk: Buffer) => {
        if (fromClient && /REPLCONF|PSYNC/i.test(chunk.toString('latin1'))) replication = true;
        if (!(holding && replication)) to.write(chunk);
      });
      from.on('close', () => to.destroy());
      from.on('error', () => to.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    holdReplication: () => {
      holding = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
