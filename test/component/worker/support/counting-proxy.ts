import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface InjectedFailure {
  /** Matched against the path without its query. */
  readonly path: RegExp;
  /** How many matching requests get the failure before they pass again. */
  times: number;
  readonly status: number;
  readonly body: string;
  readonly headers?: Record<string, string>;
}

export interface CountingProxy {
  readonly url: string;
  /** Requests that reached the service (not the injected failures), as `METHOD /path`. */
  calls(): string[];
  /** Every request, the injected failures included. */
  allCalls(): string[];
  fail(failure: Omit<InjectedFailure, 'body'> & { body?: string }): void;
  close(): Promise<void>;
}

/**
 * A tiny HTTP proxy in front of the sandbox: counts the calls the worker makes (the budget test)
 * and answers some with an injected status (5xx, 400, 429) before they reach the sandbox.
 */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  const passed: string[] = [];
  const all: string[] = [];
  const failures: InjectedFailure[] = [];
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const label = `${req.method ?? 'GET'} ${path}`;
    all.push(label);
    const failure = failures.find((candidate) => candidate.times > 0 && candidate.path.test(path));
    if (failure) {
      failure.times -= 1;
      res.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers });
      res.end(failure.body);
      return;
    }
    passed.push(label);
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    res.on('close', () => forward.destroy());
    req.pipe(forward);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    calls: () => [...passed],
    allCalls: () => [...all],
    fail: (failure) => failures.push({ body: '', ...failure }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
