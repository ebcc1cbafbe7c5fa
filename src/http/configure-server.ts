import type { Server } from 'node:http';

export interface ServerBounds {
  /** Time a client gets to send its request headers (slow-header clients are cut here). */
  HEADERS_TIMEOUT_MS: number;
  /** Time a client gets to send the whole request, body included (a body that never ends). */
  REQUEST_TIMEOUT_MS: number;
  /** How long an idle keep-alive connection stays open: above the proxy's own idle timeout. */
  KEEP_ALIVE_TIMEOUT_MS: number;
  /** Connections open at once; more are closed as they arrive. */
  MAX_CONNECTIONS: number;
}

/**
 * Bounds the listener's HTTP server before anyone is authenticated. Call it on
 * the server app.listen() returned, in the same tick: Node starts the timer that enforces
 * headersTimeout and requestTimeout when 'listening' is emitted, at connectionsCheckingInterval
 * (30 s by default, which is how a 60 s headersTimeout held a slow client for 76 s).
 *
 * keepAliveTimeout above the proxy's idle timeout (nginx and most load balancers: 60 s) means the
 * proxy always closes an idle upstream connection first, so it never sends a request on a socket
 * we are closing. Since Node 18 headersTimeout counts from a request's first byte, not from the
 * connection, so it may be shorter than keepAliveTimeout.
 */
export function configureServer(server: Server, bounds: ServerBounds): Server {
  if (bounds.HEADERS_TIMEOUT_MS > bounds.REQUEST_TIMEOUT_MS) {
    throw new Error('HEADERS_TIMEOUT_MS must not be above REQUEST_TIMEOUT_MS');
  }
  server.headersTimeout = bounds.HEADERS_TIMEOUT_MS;
  server.requestTimeout = bounds.REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = bounds.KEEP_ALIVE_TIMEOUT_MS;
  server.maxConnections = bounds.MAX_CONNECTIONS;
  // Checked often enough that a timeout ends within a second of being due, not 30 s later. The
  // option is read by Node when 'listening' is emitted; @types/node lists it only for createServer.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    Math.min(1000, Math.ceil(bounds.HEADERS_TIMEOUT_MS / 4));
  return server;
}
