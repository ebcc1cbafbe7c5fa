import { createRateLimiter } from '../../../src/svc-client/rate-limiter';

/**
 * A clock that moves only when the limiter sleeps, and only after the callers already let through
 * have seen the time (a macrotask later), so each records the instant it was granted.
 */
function fakeTime() {
  let now = 0;
  return {
    clock: { now: () => now },
    sleep: (ms: number) =>
      new Promise<void>((resolve) =>
        setImmediate(() => {
          now += ms;
          resolve();
        }),
      ),
    now: () => now,
  };
}

describe('createRateLimiter', () => {
  it('starts at most `limit` calls in any rolling window, serving callers in arrival order', async () => {
    const time = fakeTime();
    const limiter = createRateLimiter({ limit: 5, clock: time.clock, sleep: time.sleep });
    const grants: { caller: number; at: number }[] = [];

    await Promise.all(
      Array.from({ length: 23 }, (_unused, caller) =>
        limiter.acquire().then(() => grants.push({ caller, at: time.now() })),
      ),
    );

    expect(grants.map((grant) => grant.caller)).toEqual(Array.from({ length: 23 }, (_u, i) => i));
    for (const grant of grants) {
      const inWindow = grants.filter((other) => other.at > grant.at - 1000 && other.at <= grant.at);
      expect(inWindow.length).toBeLessThanOrEqual(5);
    }
    // Not slower than needed either: 23 starts at 5 a second take four full windows.
    expect(grants.at(-1)?.at).toBe(4000);
  });

  it('lets a caller abort while waiting; the others keep their order and slots', async () => {
    const time = fakeTime();
    const limiter = createRateLimiter({ limit: 1, clock: time.clock, sleep: time.sleep });
    const order: string[] = [];
    const controller = new AbortController();
    await limiter.acquire();

    const waiting = limiter.acquire(controller.signal).then(
      () => order.push('aborted one started'),
      () => order.push('aborted one refused'),
    );
    const next = limiter.acquire().then(() => order.push('next started'));
    controller.abort();
    await Promise.all([waiting, next]);

    expect(order).toEqual(['aborted one refused', 'next started']);
    expect(time.now()).toBe(1000);
    expect(limiter.pending()).toBe(0);
  });

  it('refuses at once when the signal is already aborted', async () => {
    const limiter = createRateLimiter({ limit: 1 });

    await expect(limiter.acquire(AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });

  it('rejects a limit below one', () => {
    expect(() => createRateLimiter({ limit: 0 })).toThrow(RangeError);
  });
});
