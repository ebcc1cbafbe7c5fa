import type { Server } from 'node:http';

/** Stops accepting connections, lets requests in flight finish, and drops idle keep-alives. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
