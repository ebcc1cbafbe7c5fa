import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * POSTs exactly the given bytes with exactly the given headers (no client-side serialization or
 * default Content-Type), to the app listening on 127.0.0.1:0 for this one request.
 */
export async function rawPost(
  app: Express,
  path: string,
  body: Buffer,
  headers: Record<string, string>,
): Promise<RawAnswer> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<RawAnswer>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          headers: { ...headers, 'Content-Length': String(body.length) },
        },
        (res) => {
          readAnswer(res).then(resolve, reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A response read whole: its status, headers and body as text. */
export function readAnswer(res: http.IncomingMessage): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.on('end', () =>
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        text: Buffer.concat(chunks).toString('utf8'),
      }),
    );
  });
}
