import { createServer } from 'node:net';
import { createSvcClient } from '../src';
import { errorBody, failureOf, sendJson, startServer } from './recording-server';
import type { Handler, RecordingServer } from './recording-server';

const API_KEY = 'retry-key';

/** The server's answers and the client's waits, in the order they happened. */
let events: string[] = [];
let servers: RecordingServer[] = [];

async function serve(handler: Handler, port?: number): Promise<RecordingServer> {
  const server = await startServer((request, response, index) => {
    events.push(`request ${request.method}`);
    return handler(request, response, index);
  }, port);
  servers.push(server);
  return server;
}

function clientFor(
  baseUrl: string,
  extra: { maxRetries?: number; sleep?: (ms: number) => Promise<void> } = {},
) {
  return createSvcClient({
    baseUrl,
    apiKey: API_KEY,
    maxRetries: extra.maxRetries ?? 3,
    random: () => 0.999,
    sleep:
      extra.sleep ??
      ((ms) => {
        events.push(`sleep ${ms}`);
        return Promise.resolve();
      }),
  });
}

/** A port nothing listens on: bound once, then released. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

beforeEach(() => {
  events = [];
  servers = [];
});
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

const getJob = { path: { job_id: 'S1' } };

describe('retries', () => {
  it('retries a GET after a 503 and returns the second answer', async () => {
    const server = await serve((_request, response, index) =>
      index === 0
        ? sendJson(response, 503, errorBody('402224', 'internal error'))
        : sendJson(response, 200, { id: 'S1' }),
    );

    const job = await clientFor(server.baseUrl).request('GET /conf/jobs/{job_id}', getJob);

    expect(job).toEqual({ id: 'S1' });
    expect(server.requests).toHaveLength(2);
    expect(events).toEqual(['request GET', 'sleep 499', 'request GET']);
  });

  it('does not retry a POST answered with 500', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 500, errorBody('402224', 'internal error')),
    );

    const error = await failureOf(
      clientFor(server.baseUrl).request('POST /partners', { body: { code: 'P1' } }),
    );

    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({ status: 500, retryable: true, attempts: 1 });
    expect(events).toEqual(['request POST']);
  });

  it('does not retry a POST whose connection broke after it was sent', async () => {
    const server = await serve((_request, response) => {
      response.socket?.destroy();
    });

    const error = await failureOf(
      clientFor(server.baseUrl).request('POST /partners', { body: { code: 'P1' } }),
    );

    expect(error).toMatchObject({ code: 'NETWORK', retryable: true, attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('retries a GET whose connection broke', async () => {
    const server = await serve((_request, response, index) => {
      if (index === 0) response.socket?.destroy();
      else sendJson(response, 200, { id: 'S1' });
    });

    await clientFor(server.baseUrl).request('GET /conf/jobs/{job_id}', getJob);

    expect(server.requests).toHaveLength(2);
  });

  it('retries a POST refused at connect, which provably never left', async () => {
    const port = await freePort();
    let started: RecordingServer | undefined;
    const sleep = async (ms: number): Promise<void> => {
      events.push(`sleep ${ms}`);
      // The platform comes back between the attempts.
      started ??= await serve((_request, response) => sendJson(response, 200, { ok: true }), port);
    };

    const answer = await clientFor(`http://127.0.0.1:${port}`, { sleep }).request(
      'POST /partners/operation/test',
    );

    expect(answer).toEqual({ ok: true });
    expect(events).toEqual(['sleep 499', 'request POST']);
  });

  it('honours Retry-After in seconds on a 429, for a POST too', async () => {
    const server = await serve((_request, response, index) =>
      index === 0
        ? sendJson(response, 429, errorBody('429', 'too many'), { 'retry-after': '2' })
        : sendJson(response, 200, { ok: true }),
    );

    await clientFor(server.baseUrl).request('POST /partners/operation/test');

    expect(events).toEqual(['request POST', 'sleep 2000', 'request POST']);
  });

  it('honours Retry-After given as an HTTP date', async () => {
    const later = new Date(Date.now() + 4000).toUTCString();
    const server = await serve((_request, response, index) =>
      index === 0
        ? sendJson(response, 429, {}, { 'retry-after': later })
        : sendJson(response, 200, { ok: true }),
    );
    const delays: number[] = [];

    await clientFor(server.baseUrl, {
      sleep: (ms) => {
        delays.push(ms);
        return Promise.resolve();
      },
    }).request('GET /conf/jobs/{job_id}', getJob);

    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThan(1000);
    expect(delays[0]).toBeLessThanOrEqual(4000);
  });

  it('gives up after maxRetries with exponential, jittered, growing waits', async () => {
    const server = await serve((_request, response) => sendJson(response, 503, {}));

    const error = await failureOf(
      clientFor(server.baseUrl, { maxRetries: 3 }).request('GET /conf/jobs/{job_id}', getJob),
    );

    expect(server.requests).toHaveLength(4);
    expect(events).toEqual([
      'request GET',
      'sleep 499',
      'request GET',
      'sleep 999',
      'request GET',
      'sleep 1998',
      'request GET',
    ]);
    expect(error).toMatchObject({ status: 503, retryable: true, attempts: 4 });
  });

  it('does not wait out a Retry-After longer than the cap, handing it to the caller', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 429, {}, { 'retry-after': '3600' }),
    );

    const error = await failureOf(
      clientFor(server.baseUrl).request('GET /conf/jobs/{job_id}', getJob),
    );

    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 3_600_000 });
  });

  it('does not retry a 429 when the daily budget is spent (remaining 0)', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 429, {}, { 'x-svc-api-remaining': '0' }),
    );
    const client = clientFor(server.baseUrl);

    const error = await failureOf(client.request('GET /conf/jobs/{job_id}', getJob));

    expect(server.requests).toHaveLength(1);
    expect(error.retryable).toBe(true);
    expect(client.remaining()).toBe(0);
  });

  it('does not retry a 400', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 400, errorBody('402216', 'invalid job id')),
    );

    await failureOf(clientFor(server.baseUrl).request('GET /conf/jobs/{job_id}', getJob));

    expect(server.requests).toHaveLength(1);
  });
});
