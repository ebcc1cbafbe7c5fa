import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface FreezableProxy {
  /** `redis://127.0.0.1:<port>`: the proxy's own address. */
  url: string;
  /** `127.0.0.1:<port>`, for a URL of another scheme. */
  hostPort: string;
  /** Holds every byte in both directions from now on, with the connections left open. */
  freeze: () => void;
  /**
   * From now on, each connection holds what the server sends once it has passed `bytes` to its
   * client (counted from this call, or from a later connection's start): a download stopped
   * midway on purpose, as long as the test needs, whatever the machine's speed.
   */
  holdEachAfter: (bytes: number) => void;
  /** Delivers what was held and forwards again (and ends `holdEachAfter`). */
  thaw: () => void;
  close: () => Promise<void>;
}

interface Pipe {
  readonly from: net.Socket;
  readonly to: net.Socket;
  readonly held: Buffer[];
  /** From the server to its client: what `holdEachAfter` counts. */
  readonly downstream: boolean;
  passed: number;
}

/**
 * A TCP proxy on 127.0.0.1:0 in front of a real server, for the case no closed port can show: a
 * peer that stays connected but stops answering, or a download held midway.
 */
export async function startFreezableProxy(target: {
  host: string;
  port: number;
}): Promise<FreezableProxy> {
  let frozen = false;
  let holdAfter: number | undefined;
  const pipes: Pipe[] = [];
  const sockets = new Set<net.Socket>();
  const holds = (pipe: Pipe, chunk: Buffer): boolean => {
    if (frozen) return true;
    if (!pipe.downstream || holdAfter === undefined) return false;
    if (pipe.held.length > 0 || pipe.passed >= holdAfter) return true;
    pipe.passed += chunk.byteLength;
    return false;
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const [from, to, downstream] of [
      [client, upstream, false],
      [upstream, client, true],
    ] as const) {
      const pipe: Pipe = { from, to, held: [], downstream, passed: 0 };
      pipes.push(pipe);
      sockets.add(from);
      from.on('data', (chunk: Buffer) => {
        if (holds(pipe, chunk)) pipe.held.push(chunk);
        else to.write(chunk);
      });
      from.on('close', () => to.destroy());
      from.on('error', () => to.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${String(port)}`,
    hostPort: `127.0.0.1:${String(port)}`,
    freeze: () => {
      frozen = true;
    },
    holdEachAfter: (bytes) => {
      holdAfter = bytes;
      for (const pipe of pipes) pipe.passed = 0;
    },
    thaw: () => {
      frozen = false;
      holdAfter = undefined;
      for (const pipe of pipes) {
        if (pipe.to.destroyed) pipe.held.splice(0);
        for (const chunk of pipe.held.splice(0)) pipe.to.write(chunk);
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
