import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HttpReceiver {
  readonly url: string;
  /** Event ids of the requests answered 2xx, in order. */
  readonly accepted: string[];
  /** When each request arrived (performance.now()), in order, whatever its answer. */
  readonly times: number[];
  /** Every request seen (any answer). */
  requests(): number;
  /** The answers of the next requests wait this long (a slow destination). */
  delay(ms: number): void;
  /** The status the next requests get. */
  answer(status: number): void;
  close(): Promise<void>;
}

/** A real HTTP receiver on port 0 that answers what the test says. */
export async function startHttpReceiver(initialStatus = 200): Promise<HttpReceiver> {
  let status = initialStatus;
  let seen = 0;
  let delayMs = 0;
  const accepted: string[] = [];
  const times: number[] = [];
  const server = http.createServer((req, res) => {
    times.push(performance.now());
    req.resume();
    req.on('end', () => {
      seen += 1;
      const answer = status;
      setTimeout(() => {
        if (answer < 300) accepted.push(String(req.headers['x-svc-event-id']));
        res.writeHead(answer).end();
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/hook`,
    accepted,
    times,
    requests: () => seen,
    delay: (ms) => {
      delayMs = ms;
    },
    answer: (next) => {
      status = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
