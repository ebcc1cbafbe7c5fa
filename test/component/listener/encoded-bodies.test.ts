import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { configureServer } from '../../../src/http/configure-server';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { rawPost } from '../../helpers/raw-post';
import { head, openRawSocket } from './raw-socket';

const jobEnd = readFileSync(path.join(__dirname, '../../fixtures/events/job-end.json'));
const LIMIT = 64 * 1024;

function signedHeaders(decoded: Buffer, encoding: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'Content-Encoding': encoding,
    'X-Svc-Signature': signWebhookBody(TEST_SECRET, decoded),
  };
}

describe('encoded bodies: accepted, and capped on the wire and after decoding', () => {
  let listener: ListenerUnderTest;
  beforeEach(() => {
    listener = listenerUnderTest({ bodyLimit: '64kb' });
  });
  afterEach(async () => {
    await listener.close();
  });

  it.each([
    ['gzip', zlib.gzipSync(jobEnd)],
    ['deflate', zlib.deflateSync(jobEnd)],
    ['br', zlib.brotliCompressSync(jobEnd)],
  ])('queues a %s body signed over its decoded bytes', async (encoding, wire) => {
    const res = await rawPost(listener.app, '/webhooks', wire, signedHeaders(jobEnd, encoding));
    expect(res.status).toBe(200);
    expect(await listener.events.queue.count()).toBe(1);
  });

  it('answers 413 to a gzip bomb (10 MB of zeros in ~10 KB) at the decoded cap', async () => {
    const decoded = Buffer.alloc(10 * 1024 * 1024);
    const bomb = zlib.gzipSync(decoded);
    expect(bomb.length).toBeLessThan(LIMIT);
    const res = await rawPost(listener.app, '/webhooks', bomb, signedHeaders(decoded, 'gzip'));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text).error).toBe('body_too_large');
    expect(res.headers.connection).toBe('close');
  });

  it('answers 413 to an announced Content-Length over the cap without reading it', async () => {
    const res = await rawPost(
      listener.app,
      '/webhooks',
      Buffer.alloc(LIMIT + 1),
      signedHeaders(Buffer.alloc(0), 'identity'),
    );
    expect(res.status).toBe(413);
  });

  it('stops an endless stream of empty gzip members at the wire cap', async () => {
    const server = listener.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = await openRawSocket((server.address() as AddressInfo).port);
    try {
      client.socket.write(
        head([
          'POST /webhooks HTTP/1.1',
          'Host: x',
          'Content-Type: application/json',
          'Content-Encoding: gzip',
          'Transfer-Encoding: chunked',
          `X-Svc-Signature: ${signWebhookBody(TEST_SECRET, '')}`,
        ]),
      );
      const members = Buffer.concat(Array.from({ length: 500 }, () => zlib.gzipSync('')));
      const chunk = Buffer.concat([
        Buffer.from(`${members.length.toString(16)}\r\n`),
        members,
        Buffer.from('\r\n'),
      ]);
      let sent = 0;
      let closed = false;
      void client.closed.then(() => (closed = true));
      // Decoded, this is nothing at all: only the wire cap can end it.
      while (!closed && sent < 50 * LIMIT && !client.received().includes('413')) {
        if (!client.socket.write(chunk)) await once(client.socket, 'drain');
        sent += chunk.length;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await client.waitFor('body_too_large');
      expect(client.received()).toMatch(/^HTTP\/1\.1 413/);
      expect(sent).toBeLessThan(50 * LIMIT);
      await client.closed;
    } finally {
      client.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('answers 415 to an encoding it cannot undo, and 400 to a body that does not decode', async () => {
    const unknown = await rawPost(
      listener.app,
      '/webhooks',
      jobEnd,
      signedHeaders(jobEnd, 'compress'),
    );
    expect(unknown.status).toBe(415);
    expect(JSON.parse(unknown.text).error).toBe('unsupported_encoding');
    const corrupt = Buffer.from('not gzip at all');
    const broken = await rawPost(listener.app, '/webhooks', corrupt, signedHeaders(jobEnd, 'gzip'));
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.text).error).toBe('bad_encoding');
  });

  it('ends an encoded body that never finishes at the request timeout', async () => {
    const server = configureServer(listener.app.listen(0, '127.0.0.1'), {
      HEADERS_TIMEOUT_MS: 500,
      REQUEST_TIMEOUT_MS: 1000,
      KEEP_ALIVE_TIMEOUT_MS: 5000,
      MAX_CONNECTIONS: 10,
    });
    await once(server, 'listening');
    const client = await openRawSocket((server.address() as AddressInfo).port);
    try {
      const wire = zlib.gzipSync(jobEnd);
      client.socket.write(
        head([
          'POST /webhooks HTTP/1.1',
          'Host: x',
          'Content-Encoding: gzip',
          `Content-Length: ${String(wire.length)}`,
          `X-Svc-Signature: ${signWebhookBody(TEST_SECRET, jobEnd)}`,
        ]),
      );
      client.socket.write(wire.subarray(0, 20));
      expect(await client.closed).toBeLessThan(2200);
      expect(await listener.events.queue.count()).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
