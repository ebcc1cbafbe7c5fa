import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { configureServer } from '../../../src/http/configure-server';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { head, openRawSocket, sleep } from './raw-socket';

const BOUNDS = {
  HEADERS_TIMEOUT_MS: 600,
  REQUEST_TIMEOUT_MS: 1200,
  KEEP_ALIVE_TIMEOUT_MS: 2000,
  MAX_CONNECTIONS: 4,
};

describe('the listener server, bounded before anyone is authenticated', () => {
  let listener: ListenerUnderTest;
  let server: http.Server;
  let port: number;
  beforeEach(async () => {
    listener = listenerUnderTest();
    server = configureServer(listener.app.listen(0, '127.0.0.1'), BOUNDS);
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await listener.close();
  });

  it('closes a client that sends its headers one byte at a time, soon after HEADERS_TIMEOUT_MS', async () => {
    const client = await openRawSocket(port);
    client.socket.write('POST /webhooks HTTP/1.1\r\nHost: x\r\nX-Pad: ');
    const dripping = setInterval(() => client.socket.write('a'), 100);
    try {
      const heldMs = await client.closed;
      expect(heldMs).toBeGreaterThanOrEqual(BOUNDS.HEADERS_TIMEOUT_MS - 50);
      expect(heldMs).toBeLessThan(BOUNDS.HEADERS_TIMEOUT_MS + 1200);
      expect(client.received()).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(dripping);
    }
  });

  it('ends a signed body that never finishes at REQUEST_TIMEOUT_MS, and queues nothing', async () => {
    const body = '{"id":"never-ends","action":"job_end","time":"2024-11-06T10:15:30Z"}';
    const client = await openRawSocket(port);
    client.socket.write(
      head([
        'POST /webhooks HTTP/1.1',
        'Host: x',
        'Content-Type: application/json',
        `Content-Length: ${String(body.length)}`,
        `X-Svc-Signature: ${signWebhookBody(TEST_SECRET, body)}`,
      ]),
    );
    client.socket.write(body.slice(0, 10));
    const heldMs = await client.closed;
    expect(heldMs).toBeLessThan(BOUNDS.REQUEST_TIMEOUT_MS + 1200);
    expect(heldMs).toBeGreaterThanOrEqual(BOUNDS.REQUEST_TIMEOUT_MS - 50);
    expect(await listener.events.queue.count()).toBe(0);
  });

  it('answers 401 to an unsigned POST at once, without reading its body, and closes', async () => {
    const client = await openRawSocket(port);
    // A 1 MB body is announced but not one byte of it is sent.
    client.socket.write(
      head([
        'POST /webhooks HTTP/1.1',
        'Host: x',
        'Content-Type: application/json',
        `Content-Length: ${String(1024 * 1024)}`,
      ]),
    );
    await client.waitFor('"bad_signature"', 1000);
    expect(client.received()).toMatch(/^HTTP\/1\.1 401/);
    expect(client.received().toLowerCase()).toContain('connection: close');
    expect(await client.closed).toBeLessThan(1000);
  });

  it('answers 401 to a signature header that is not Base64 of 32 bytes, before the body', async () => {
    const client = await openRawSocket(port);
    client.socket.write(
      head([
        'POST /webhooks HTTP/1.1',
        'Host: x',
        'Content-Length: 100',
        `X-Svc-Signature: ${'a'.repeat(64)}`,
      ]),
    );
    await client.waitFor('"bad_signature"', 1000);
    expect(await client.closed).toBeLessThan(1000);
  });

  it('keeps an idle keep-alive connection open past HEADERS_TIMEOUT_MS, until KEEP_ALIVE_TIMEOUT_MS', async () => {
    const client = await openRawSocket(port);
    client.socket.write(head(['GET /healthz HTTP/1.1', 'Host: x']));
    await client.waitFor('"ok"');
    await sleep(BOUNDS.HEADERS_TIMEOUT_MS + 300);
    client.socket.write(head(['GET /healthz HTTP/1.1', 'Host: x']));
    await sleep(200);
    expect(client.received().match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    const heldMs = await client.closed;
    expect(heldMs).toBeGreaterThanOrEqual(
      BOUNDS.HEADERS_TIMEOUT_MS + 300 + BOUNDS.KEEP_ALIVE_TIMEOUT_MS - 100,
    );
  });

  it('closes connections over MAX_CONNECTIONS as they arrive', async () => {
    const held = await Promise.all(
      Array.from({ length: BOUNDS.MAX_CONNECTIONS }, () => openRawSocket(port)),
    );
    await sleep(100);
    const extra = await openRawSocket(port);
    expect(await extra.closed).toBeLessThan(500);
    for (const client of held) client.socket.destroy();
  });

  it('refuses a HEADERS_TIMEOUT_MS above REQUEST_TIMEOUT_MS', () => {
    expect(() =>
      configureServer(http.createServer(), { ...BOUNDS, HEADERS_TIMEOUT_MS: 20000 }),
    ).toThrow(/HEADERS_TIMEOUT_MS/);
  });
});
