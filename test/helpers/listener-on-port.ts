import type { SpoolFileWrite } from '../../src/events/spool/spool-writer';
import http from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signWebhookBody } from '../../src/signature/sign-webhook-body';
import { listenerUnderTest, TEST_SECRET } from './listener-under-test';
import type { ListenerUnderTest } from './listener-under-test';

export interface Answer {
  status: number;
  body: { status?: string; error?: string; message?: string };
}

export interface ListenerOnPort {
  listener: ListenerUnderTest;
  server: Server;
  port: number;
  /** Events in the spool (-1 without one). */
  depth: () => number;
  close: () => Promise<void>;
}

/**
 * The listener process (listenerUnderTest) on a Redis of the test's own, its spool drained as
 * bin/web.ts drains it before listening, then listening on a loopback port of its own.
 */
export async function listenerOnPort(
  redisUrl: string,
  env: Record<string, string>,
  spoolWrite?: SpoolFileWrite,
): Promise<ListenerOnPort> {
  const listener = listenerUnderTest({
    redisUrl,
    env,
    ...(spoolWrite === undefined ? {} : { spoolWrite }),
  });
  await listener.process.drainSpool();
  const server = listener.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    listener,
    server,
    port,
    depth: () => listener.process.spool?.stats().depth ?? -1,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await listener.close();
    },
  };
}

/** POSTs one body, signed with TEST_SECRET, to the listener's /webhooks. */
export function postSigned(port: number, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/webhooks',
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'X-Svc-Signature': signWebhookBody(TEST_SECRET, body),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Answer['body'] }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function getText(port: number, path: string): Promise<string> {
  return (await getAnswerText(port, path)).text;
}

/** A GET's status and body. */
export function getAnswerText(
  port: number,
  path: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      })
      .on('error', reject);
  });
}

/** Polls `check` every 100 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
