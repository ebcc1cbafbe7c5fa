import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Router } from 'express';

/** A metrics server once listening: the port it got (0 → a free one) and its stop. */
export interface MetricsServer {
  port: number;
  close: () => Promise<void>;
}

/**
 * Serves `router` (a `GET /metrics`) on a port of its own, on `host` when given (one interface,
 * e.g. 127.0.0.1 or a private address; unset: every interface), and 404 for anything else.
 */
export async function serveMetrics(
  router: Router,
  port: number,
  host?: string,
): Promise<MetricsServer> {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(router);
  app.use((_req, res) => {
    res.status(404).type('text/plain; charset=utf-8').send('not found\n');
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
