import { createSvcClient } from '../src';
import type { SvcClientOptions } from '../src';
import { captureLogger, failureOf, sendJson, startServer } from './recording-server';
import type { RecordingServer } from './recording-server';

const API_KEY = 'limit-key';

const noWait = (): Promise<void> => Promise.resolve();

function clientOf(baseUrl: string, options: Partial<SvcClientOptions> = {}) {
  return createSvcClient({ baseUrl, apiKey: API_KEY, sleep: noWait, ...options });
}
const getJob = { path: { job_id: 'S1' } };

describe('timeout and abort', () => {
  let server: RecordingServer;
  beforeAll(async () => {
    // Never answers: every call ends by timeout or abort.
    server = await startServer(() => undefined);
  });
  afterAll(() => server.close());

  it('ends a call that gets no answer within timeoutMs, saying timeout', async () => {
    const client = clientOf(server.baseUrl, { timeoutMs: 100, maxRetries: 0 });

    const error = await failureOf(client.request('GET /conf/jobs/{job_id}', getJob));

    expect(error).toMatchObject({ code: 'TIMEOUT', retryable: true, status: undefined });
    expect(error.message).toContain('timeout');
  });

  it('retries a timed-out GET but not a timed-out POST', async () => {
    const client = clientOf(server.baseUrl, { timeoutMs: 400, maxRetries: 1, sleep: noWait });

    await failureOf(client.request('GET /conf/jobs/{job_id}', { path: { job_id: 'T2' } }));
    await failureOf(client.request('POST /partners', { body: { code: 'P1' } }));

    // Counted by path: a late request of an earlier test must not count here.
    expect(server.requests.filter((request) => request.pathname.endsWith('/T2'))).toHaveLength(2);
    expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
  });

  it('ends a call at once when the caller aborts, says aborted, and never retries', async () => {
    const client = clientOf(server.baseUrl, { maxRetries: 3, sleep: noWait });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 400);

    const error = await failureOf(
      client.request('GET /conf/jobs/{job_id}', {
        path: { job_id: 'T3' },
        signal: controller.signal,
      }),
    );

    expect(error).toMatchObject({ code: 'ABORTED', retryable: false });
    expect(error.message).toContain('aborted');
    expect(server.requests.filter((request) => request.pathname.endsWith('/T3'))).toHaveLength(1);
  });

  it('lets a caller waiting for the limiter abort without ever sending', async () => {
    // The first call only holds the limiter's one slot; its timeout leaves a loaded server time to
    // record it (at 50 ms it could end before the server had read it).
    const client = clientOf(server.baseUrl, { ratePerSecond: 1, timeoutMs: 400, maxRetries: 0 });
    const path = { job_id: 'T4' };
    const first = failureOf(client.request('GET /conf/jobs/{job_id}', { path }));
    const controller = new AbortController();
    const second = failureOf(
      client.request('GET /conf/jobs/{job_id}', { path, signal: controller.signal }),
    );

    controller.abort();

    await expect(second).resolves.toMatchObject({ code: 'ABORTED', attempts: 0 });
    await first;
    expect(server.requests.filter((request) => request.pathname.endsWith('/T4'))).toHaveLength(1);
  });
});

describe('client-side rate limit', () => {
  let server: RecordingServer;
  beforeAll(async () => {
    server = await startServer((_request, response) => sendJson(response, 200, {}));
  });
  afterAll(() => server.close());

  it('never lets more than ratePerSecond calls reach the server in any rolling second', async () => {
    const rate = 10;
    const client = clientOf(server.baseUrl, { ratePerSecond: rate });

    const burst = (job_id: string) =>
      Promise.all(
        Array.from({ length: 25 }, () =>
          client.request('GET /conf/jobs/{job_id}', { path: { job_id } }),
        ),
      );
    // A first burst opens the connections; the measured burst then starts while the warm-up's
    // slots are still held, so it also checks that slots free a second after the answers.
    await burst('warm-up');
    await burst('measured');

    const arrivals = server.requests
      .filter((request) => request.pathname.endsWith('/measured'))
      .map((request) => request.at)
      .sort((a, b) => a - b);
    expect(arrivals).toHaveLength(25);
    // The (rate+1)-th arrival after any arrival comes a second later: a slot frees a second after
    // its answer, which came after its request arrived (10 ms margin: timers fire on a
    // millisecond-rounded loop clock).
    for (let index = rate; index < arrivals.length; index += 1) {
      expect((arrivals[index] ?? 0) - (arrivals[index - rate] ?? 0)).toBeGreaterThan(990);
    }
  });
});

describe('governance', () => {
  let server: RecordingServer;
  const budget = ['1200', '1001', '999', '990', '1500', '800'];
  beforeAll(async () => {
    server = await startServer((_request, response, index) =>
      sendJson(response, 200, {}, { 'x-svc-api-remaining': budget[index] ?? '0' }),
    );
  });
  afterAll(() => server.close());

  it('exposes the latest remaining, reports each value, and warns once per crossing of the floor', async () => {
    const { logger, lines } = captureLogger();
    const seen: number[] = [];
    const client = createSvcClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      logger,
      remainingFloor: 1000,
      onRemaining: (remaining) => seen.push(remaining),
    });
    const before = client.remaining();

    for (let call = 0; call < budget.length; call += 1) {
      await client.request('GET /conf/general');
    }

    const warnings = lines
      .map((line) => JSON.parse(line) as { level: number; remaining?: number })
      .filter((line) => line.level === 40);
    expect(before).toBeUndefined();
    expect(seen).toEqual([1200, 1001, 999, 990, 1500, 800]);
    expect(client.remaining()).toBe(800);
    expect(warnings.map((warning) => warning.remaining)).toEqual([999, 800]);
  });
});
