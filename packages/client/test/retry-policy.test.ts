import { createRetryPolicy, parseRetryAfter } from '../src/retry-policy';

const policy = createRetryPolicy({
  maxRetries: 3,
  baseDelayMs: 100,
  maxDelayMs: 1000,
  random: () => 0.5,
  now: () => Date.parse('2025-01-01T00:00:00Z'),
});
const status = (code: number, retryAfter: string | null = null, remaining?: number) =>
  ({ kind: 'status', status: code, retryAfter, remaining }) as const;

describe('createRetryPolicy', () => {
  it('backs off exponentially with full jitter, capped, for idempotent methods', () => {
    const delays = [1, 2, 3].map((attempt) => policy.decide('GET', status(502), attempt));

    expect(delays).toEqual([
      { retry: true, delayMs: 50 },
      { retry: true, delayMs: 100 },
      { retry: true, delayMs: 200 },
    ]);
    expect(policy.decide('PUT', status(503), 4)).toEqual({ retry: false });
  });

  it('caps the backoff at maxDelayMs', () => {
    const wide = createRetryPolicy({
      maxRetries: 20,
      baseDelayMs: 100,
      maxDelayMs: 1000,
      random: () => 0.999,
    });

    expect(wide.decide('DELETE', { kind: 'timeout' }, 10)).toEqual({ retry: true, delayMs: 999 });
  });

  it('never retries a POST that may have reached the platform', () => {
    expect(policy.decide('POST', status(500), 1)).toEqual({ retry: false });
    expect(policy.decide('POST', { kind: 'timeout' }, 1)).toEqual({ retry: false });
    expect(policy.decide('POST', { kind: 'network', sent: true }, 1)).toEqual({ retry: false });
    expect(policy.decide('POST', { kind: 'network', sent: false }, 1)).toEqual({
      retry: true,
      delayMs: 50,
    });
  });

  it('does not retry client errors', () => {
    expect(policy.decide('GET', status(400), 1)).toEqual({ retry: false });
    expect(policy.decide('GET', status(404), 1)).toEqual({ retry: false });
  });

  it('waits what Retry-After says on a 429, seconds or date, and hands back one over the cap', () => {
    expect(policy.decide('POST', status(429, '1'), 1)).toEqual({ retry: true, delayMs: 1000 });
    expect(policy.decide('GET', status(429, 'Wed, 01 Jan 2025 00:00:01 GMT'), 1)).toEqual({
      retry: true,
      delayMs: 1000,
    });
    expect(policy.decide('GET', status(429, '30'), 1)).toEqual({
      retry: false,
      retryAfterMs: 30000,
    });
    expect(policy.decide('GET', status(429), 1)).toEqual({ retry: true, delayMs: 50 });
  });

  it('stops on a 429 once the budget is spent or the attempts are used up', () => {
    expect(policy.decide('GET', status(429, '1', 0), 1)).toEqual({
      retry: false,
      retryAfterMs: 1000,
    });
    expect(policy.decide('GET', status(429, null), 4)).toEqual({ retry: false });
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['12', 12000],
    ['Wed, 01 Jan 2025 00:00:05 GMT', 5000],
    ['Tue, 31 Dec 2024 23:59:00 GMT', 0],
    ['soon', undefined],
    ['-3', undefined],
  ])('reads %s', (value, expected) => {
    expect(parseRetryAfter(value, Date.parse('2025-01-01T00:00:00Z'))).toBe(expected);
  });
});
