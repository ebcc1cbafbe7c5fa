import { createRateLimiter } from '../src';
import type { Release } from '../src';

/**
 * Jest's fake timers drive both the injected clock and the limiter's sleep, so a test can place
 * answers at chosen instants and let the limiter wait without waiting.
 */
function fakeTime() {
  jest.useFakeTimers({ now: 0 });
  return {
    clock: { now: () => Date.now() },
    sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    now: () => Date.now(),
    advance: (ms: number) => jest.advanceTimersByTimeAsync(ms),
  };
}

afterEach(() => {
  jest.useRealTimers();
});

describe('createRateLimiter', () => {
  it('holds a slot from the start until windowMs after its release, serving callers in arrival order', async () => {
    const time = fakeTime();
    const limiter = createRateLimiter({ limit: 2, clock: time.clock, sleep: time.sleep });
    const grants: { caller: number; at: number; release: Release }[] = [];
    for (let caller = 0; caller < 4; caller += 1) {
      void limiter.acquire().then((release) => grants.push({ caller, at: time.now(), release }));
    }
    await time.advance(0);
    expect(grants.map((grant) => grant.caller)).toEqual([0, 1]);

    await time.advance(300);
    grants[0]?.release();
    await time.advance(999);
    expect(grants).toHaveLength(2);
    await time.advance(1);

    expect(grants.map((grant) => [grant.caller, grant.at])).toEqual([
      [0, 0],
      [1, 0],
      [2, 1300],
    ]);
    expect(limiter.pending()).toBe(1);
  });

  it('never frees the slot of a call still in flight, however long it takes', async () => {
    const time = fakeTime();
    const limiter = createRateLimiter({ limit: 1, clock: time.clock, sleep: time.sleep });
    const release = await limiter.acquire();
    let second = false;
    void limiter.acquire().then(() => (second = true));

    await time.advance(10_000);
    expect(second).toBe(false);
    release();
    await time.advance(999);
    expect(second).toBe(false);
    await time.advance(1);
    expect(second).toBe(true);
  });

  it('counts a release given twice once', async () => {
    const time = fakeTime();
    const limiter = createRateLimiter({ limit: 2, clock: time.clock, sleep: time.sleep });
    const first = await limiter.acquire();
    await limiter.acquire(); // held for the whole test
    const granted: string[] = [];
    void limiter.acquire().then(() => granted.push('third'));
    void limiter.acquire().then(() => granted.push('fourth'));

    first();
    first();
    await time.advance(5_000);

    expect(granted).toEqual(['third']);
    expect(limiter.pending()).toBe(1);
  });

  it('lets at most `limit` calls arrive in any window when answers are delayed by different amounts', async () => {
    const time = fakeTime();
    const limit = 5;
    const limiter = createRateLimiter({ limit, clock: time.clock, sleep: time.sleep });
    const arrivals: number[] = [];
    // Transit to the server from 0 to 290 ms, then 20 ms to the answer: started in one second,
    // calls arrive in the next; a limiter that counts starts lets up to 2 × limit arrive together.
    const call = async (caller: number): Promise<void> => {
      const release = await limiter.acquire();
      try {
        await time.sleep(((caller * 7) % 30) * 10);
        arrivals.push(time.now());
        await time.sleep(20);
      } finally {
        release();
      }
    };
    const all = Promise.all(Array.from({ length: 40 }, (_unused, caller) => call(caller)));
    await time.advance(60_000);
    await all;

    expect(arrivals).toHaveLength(40);
    for (const at of arrivals) {
      const inWindow = arrivals.filter((other) => other >= at && other < at + 1000);
      expect(inWindow.length).toBeLessThanOrEqual(limit);
    }
  });

  it('lets a caller abort while waiting; the others keep their order and slots', async () => {
    const time = fakeTime();
    const limiter = createRateLimiter({ limit: 1, clock: time.clock, sleep: time.sleep });
    const order: string[] = [];
    const controller = new AbortController();
    const release = await limiter.acquire();

    const waiting = limiter.acquire(controller.signal).then(
      () => order.push('aborted one started'),
      () => order.push('aborted one refused'),
    );
    const next = limiter.acquire().then(() => order.push(`next started at ${String(time.now())}`));
    controller.abort();
    release();
    await time.advance(1000);
    await Promise.all([waiting, next]);

    expect(order).toEqual(['aborted one refused', 'next started at 1000']);
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
