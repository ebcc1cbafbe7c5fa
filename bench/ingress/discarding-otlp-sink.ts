import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local OTLP/HTTP endpoint on port 0 that reads each export and answers 200, keeping nothing:
 * the listener with tracing on pays for its spans and their export, not for a collector.
 */
export async function startDiscardingOtlpSink(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
