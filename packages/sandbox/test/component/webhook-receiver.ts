import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedPost {
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface ReceiverOptions {
  /** How to answer the challenge GET: echo it, answer a different value, or fail. */
  readonly challenge?: 'echo' | 'wrong' | 'status500';
  /** Status for the nth POST (1-based). */
  readonly statusFor?: (attempt: number) => number;
}

export interface WebhookReceiver {
  readonly url: string;
  readonly posts: ReceivedPost[];
  close(): Promise<void>;
}

/** A stand-in listener on 127.0.0.1 that records what the sandbox sends it. */
export async function startReceiver({
  challenge = 'echo',
  statusFor = () => 200,
}: ReceiverOptions = {}): Promise<WebhookReceiver> {
  const posts: ReceivedPost[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'GET') {
        const value = new URL(req.url ?? '/', 'http://x').searchParams.get('challenge');
        if (challenge === 'status500') {
          res.writeHead(500).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ challenge: challenge === 'echo' ? value : 'something-else' }));
        return;
      }
      posts.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(statusFor(posts.length)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/webhooks`,
    posts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
