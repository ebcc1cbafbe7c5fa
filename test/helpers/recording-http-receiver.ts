import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface RecordingHttpReceiver {
  /** Base URL, without a path: `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Every request, in order, with its exact body. */
  readonly requests: RecordedRequest[];
  /** The status the next requests get. */
  answer(status: number): void;
  close(): Promise<void>;
}

/** A real HTTP receiver on port 0 that keeps each request's path, headers and body. */
export async function startRecordingHttpReceiver(
  initialStatus = 200,
): Promise<RecordingHttpReceiver> {
  let status = initialStatus;
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    requests,
    answer: (next) => {
      status = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
