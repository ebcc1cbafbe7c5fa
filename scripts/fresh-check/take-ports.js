// Holds the given loopback ports with a program that is not the server a test might expect
// there: it accepts each connection and closes it. A test that used a default port fails.
const net = require('node:net');

for (const port of process.argv.slice(2).map(Number)) {
  net
    .createServer((socket) => socket.destroy())
    .on('error', (error) => console.error(`take-ports: ${port}: ${error.message}`))
    .listen(port, '127.0.0.1');
}
