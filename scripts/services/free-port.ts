import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** A loopback port free a moment ago: bound, then closed, for a server started right after. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
