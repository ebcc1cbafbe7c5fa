import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A server that does what the keep-alive load test must catch: it reads each request, answers
 * 200, but closes the connection of every other request without answering it. Run as its own
 * process (`node --import tsx [preload] request-dropping-server.ts`); prints `port=<n>` once
 * listening, exits on SIGTERM. Used to show that the load test's counts see a dropped request.
 */
let requests = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    requests += 1;
    if (requests % 2 === 0) req.socket.destroy();
    else res.writeHead(200).end();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`port=${String((server.address() as AddressInfo).port)}\n`);
});
process.on('SIGTERM', () => process.exit(0));
