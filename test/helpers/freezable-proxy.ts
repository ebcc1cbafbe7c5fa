import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface FreezableProxy {
  /** `redis://127.0.0.1:<port>`: the proxy's own address. */
  url: string;
  /** Holds every byte in both directions from now on, with the connections left open. */
  freeze: () => void;
  /** Delivers what was held and forwards again. */
  thaw: () => void;
  close: () => Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1:0 in front of a real server, for the case no closed port can show: a
 * peer that stays connected but stops answering.
 */
export async function startFreezableProxy(target: {
  host: string;
  port: number;
}): Promise<FreezableProxy> {
  let frozen = false;
  const pipes: { from: net.Socket; to: net.Socket; held: Buffer[] }[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      const pipe = { from, to, held: [] as Buffer[] };
      pipes.push(pipe);
      sockets.add(from);
      from.on('data', (chunk: Buffer) => {
        if (frozen) pipe.held.push(chunk);
        else to.write(chunk);
      });
      from.on('close', () => to.destroy());
      from.on('error', () => to.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const pipe of pipes) {
        for (const chunk of pipe.held.splice(0)) pipe.to.write(chunk);
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
