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

/**
 * A real HTTP receiver on port 0 that keeps each request's path, headers and body; it answers
 * `answerAfterMs` after the body arrived (a destination that takes its time), at once by default.
 */
export async function startRecordingHttpReceiver(
  initialStatus = 200,
  options: { answerAfterMs?: number } = {},
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
      const answer = status;
      if (options.answerAfterMs === undefined) res.writeHead(answer).end();
      else setTimeout(() => res.writeHead(answer).end(), options.answerAfterMs);
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
