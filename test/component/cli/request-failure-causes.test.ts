import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { runCli } from '../../../src/cli/run-cli';
import { TEST_SECRET } from '../../helpers/listener-under-test';
import { captureIo } from './cli-io-capture';

const servers: (Server | net.Server)[] = [];
const sockets: net.Socket[] = [];

async function listening<T extends Server | net.Server>(server: T): Promise<string> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<string> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `127.0.0.1:${String(port)}`;
}

async function challenge(url: string): Promise<{ status: number; stderr: string }> {
  const io = captureIo({});
  const status = await runCli(['challenge', '--url', url, '--timeout', '500'], io);
  return { status, stderr: io.stderr() };
}

async function sendTestEvent(url: string): Promise<{ status: number; stderr: string }> {
  const io = captureIo({ WEBHOOK_SECRET: TEST_SECRET });
  const args = ['send-test-event', '--url', url, '--sample', 'job_end', '--timeout', '500'];
  const status = await runCli(args, io);
  return { status, stderr: io.stderr() };
}

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('challenge and send-test-event name why a request got no answer', () => {
  it('names a refused connection', async () => {
    const url = `http://${await closedPort()}/webhooks`;
    for (const run of [challenge, sendTestEvent]) {
      const { status, stderr } = await run(url);
      expect(status).toBe(1);
      expect(stderr).toContain('connection refused (ECONNREFUSED)');
      expect(stderr).not.toContain('fetch failed');
    }
  });

  it('names a host that does not resolve as DNS', async () => {
    const { status, stderr } = await challenge('http://no-such-listener.invalid/webhooks');
    expect(status).toBe(1);
    expect(stderr).toMatch(
      /DNS: cannot resolve no-such-listener\.invalid \((ENOTFOUND|EAI_AGAIN)\)/,
    );
  });

  it('names TLS when https meets a server that does not speak it', async () => {
    const plain = await listening(createServer((_req, res) => res.end('{}')));
    for (const run of [challenge, sendTestEvent]) {
      const { status, stderr } = await run(`https://${plain}/webhooks`);
      expect(status).toBe(1);
      expect(stderr).toMatch(/TLS: .+ \((EPROTO|ERR_SSL_\w+)\)/);
    }
  });

  it('names a timeout when the server accepts and never answers', async () => {
    const silent = net.createServer((socket) => sockets.push(socket));
    const address = await listening(silent);
    for (const run of [challenge, sendTestEvent]) {
      const { status, stderr } = await run(`http://${address}/webhooks`);
      expect(status).toBe(1);
      expect(stderr).toContain('timeout: no answer within 500 ms');
    }
  });

  it('names the HTTP status a challenge was answered with', async () => {
    const failing = await listening(
      createServer((_req, res) => {
        res.statusCode = 503;
        res.end('busy');
      }),
    );
    const { status, stderr } = await challenge(`http://${failing}/webhooks`);
    expect(status).toBe(1);
    expect(stderr).toContain('challenge answered with status 503');
  });
});
