import http from 'node:http';

export interface PacedLoad {
  connections: number;
  ratePerSecond: number;
  durationMs: number;
}

export interface SignedPost {
  body: string;
  signature: string;
}

export interface ClientTally {
  sent: number;
  statuses: Record<string, number>;
  /** Requests that ended without an answer: the connection closed, reset or timed out. */
  unanswered: Record<string, number>;
}

export interface PacedKeepAliveOptions {
  port: number;
  path: string;
  load: PacedLoad;
  /** The n-th request's body and its X-Svc-Signature. */
  post: (n: number) => SignedPost;
}

const bump = (counts: Record<string, number>, key: string): void => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** One POST on the agent's keep-alive connections; counted once it ends, answered or not. */
function send(
  agent: http.Agent,
  options: PacedKeepAliveOptions,
  n: number,
  tally: ClientTally,
): Promise<void> {
  const { body, signature } = options.post(n);
  return new Promise<void>((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: options.port,
        path: options.path,
        method: 'POST',
        agent,
        timeout: 10_000,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'X-Svc-Signature': signature,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          bump(tally.statuses, String(res.statusCode));
          resolve();
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', (error: NodeJS.ErrnoException) => {
      bump(tally.unanswered, error.code ?? error.message);
      resolve();
    });
    req.end(body);
  });
}

/**
 * Paced POSTs over at most `load.connections` keep-alive connections (an `http.Agent`, one request
 * at a time on each, as the platform's sender does). Unlike a load generator that stops by
 * destroying its connections, it waits until every request has ended, so an answer still in
 * flight when the pacing stops is read, and only a request the server left unanswered is counted
 * as one.
 */
export async function pacedKeepAliveLoad(options: PacedKeepAliveOptions): Promise<ClientTally> {
  const { load } = options;
  const agent = new http.Agent({ keepAlive: true, maxSockets: load.connections });
  const tally: ClientTally = { sent: 0, statuses: {}, unanswered: {} };
  const ended: Promise<void>[] = [];
  const started = Date.now();
  await new Promise<void>((resolve) => {
    const pace = setInterval(() => {
      const elapsed = Math.min(Date.now() - started, load.durationMs);
      while (tally.sent < (load.ratePerSecond * elapsed) / 1000) {
        ended.push(send(agent, options, tally.sent, tally));
        tally.sent += 1;
      }
      if (elapsed >= load.durationMs) {
        clearInterval(pace);
        resolve();
      }
    }, 5);
  });
  await Promise.all(ended);
  agent.destroy();
  return tally;
}
