import { createSvcClient, nodeHttpTransport } from '@svcws/client';
import type { HttpTransport } from '@svcws/client';
import { startSandbox, TEST_API_KEY } from '@svcws/sandbox';
import type { SandboxUnderTest } from '@svcws/sandbox';

/**
 * The per-second limit (spec §8 governance, docs/platform-shapes.md: 429 past the threshold).
 * The figure is 25/s; 1,000 calls at 25/s take 40 s, so both sides run at 250/s here:
 * the same property (the client's limiter equal to the sandbox's threshold) in 4 s.
 */
const RATE = 250;
const BURST = 1000;
const LOW_RATE = 20;

/** Counts every answer's status as it comes off the wire, retries included. */
function countingTransport(): { transport: HttpTransport; statuses: number[] } {
  const statuses: number[] = [];
  const transport: HttpTransport = async (url, request) => {
    const response = await nodeHttpTransport(url, request);
    statuses.push(response.status);
    return response;
  };
  return { transport, statuses };
}

const count = (statuses: readonly number[], status: number): number =>
  statuses.filter((value) => value === status).length;

describe('client against sandbox: the per-second limit', () => {
  let sut: SandboxUnderTest;
  beforeEach(async () => {
    sut = await startSandbox({ SANDBOX_RATE_PER_SECOND: RATE });
  });
  afterEach(async () => {
    await sut.close();
  });

  it(`keeps a burst of ${String(BURST)} calls fired at once free of 429s when its limit equals the sandbox's (${String(RATE)}/s)`, async () => {
    const { transport, statuses } = countingTransport();
    const client = createSvcClient({
      baseUrl: sut.url,
      apiKey: TEST_API_KEY,
      ratePerSecond: RATE,
      maxRetries: 3,
      transport,
    });
    const started = performance.now();
    const results = await Promise.allSettled(
      Array.from({ length: BURST }, () =>
        client.request('GET /conf/jobs/{job_id}', { path: { job_id: 'S7781' } }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const tooMany = count(statuses, 429);
    process.stdout.write(
      `rate limit (client ${String(RATE)}/s = sandbox ${String(RATE)}/s): ${String(BURST)} calls, ${String(statuses.length)} requests sent, ${String(count(statuses, 200))} × 200, ${String(tooMany)} × 429, ${seconds.toFixed(2)} s\n`,
    );
    expect(results.filter((result) => result.status === 'rejected')).toHaveLength(0);
    expect(tooMany).toBe(0);
    expect(statuses).toHaveLength(BURST);
    // 1,000 calls at 250/s: four windows, the last starting after 3 s.
    expect(seconds).toBeGreaterThan(2.9);
  });

  it('with its limiter far above the sandbox threshold the client does meet 429s, and retries them after Retry-After', async () => {
    // A low threshold, so that the calls fired at once arrive within one second even on a loaded
    // machine (at 250/s a slow test process spread its arrivals thin enough to meet no 429).
    await sut.close();
    sut = await startSandbox({ SANDBOX_RATE_PER_SECOND: LOW_RATE });
    const { transport, statuses } = countingTransport();
    const client = createSvcClient({
      baseUrl: sut.url,
      apiKey: TEST_API_KEY,
      ratePerSecond: 10_000,
      maxRetries: 3,
      transport,
    });
    const calls = 3 * LOW_RATE;
    const results = await Promise.allSettled(
      Array.from({ length: calls }, () =>
        client.request('GET /conf/jobs/{job_id}', { path: { job_id: 'S7781' } }),
      ),
    );
    const tooMany = count(statuses, 429);
    process.stdout.write(
      `rate limit (client 10000/s > sandbox ${String(LOW_RATE)}/s): ${String(calls)} calls, ${String(statuses.length)} requests sent, ${String(count(statuses, 200))} × 200, ${String(tooMany)} × 429 (retried)\n`,
    );
    expect(tooMany).toBeGreaterThan(0);
    expect(count(statuses, 200)).toBe(calls);
    expect(results.filter((result) => result.status === 'rejected')).toHaveLength(0);
  });
});
