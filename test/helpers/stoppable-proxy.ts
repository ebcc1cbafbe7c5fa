import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface StoppableProxy {
  readonly port: number;
  /** Closes the port and every connection through it: the server looks down. */
  stop: () => Promise<void>;
  /** Listens again on the same port. */
  start: () => Promise<void>;
  close: () => Promise<void>;
}

/** A TCP proxy on 127.0.0.1 in front of a real server that can be taken down and brought back. */
export async function startStoppableProxy(target: {
  host: string;
  port: number;
}): Promise<StoppableProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const listen = async (): Promise<void> => {
    const next = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => next.listen(port, '127.0.0.1', resolve));
    port = (next.address() as AddressInfo).port;
    server = next;
  };
  const stop = async (): Promise<void> => {
    const current = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (current !== undefined) await new Promise<void>((resolve) => current.close(() => resolve()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    stop,
    start: listen,
    close: stop,
  };
}
