import { createFailureWindow } from '../../../src/routes/failure-window';

describe('failure window', () => {
  it('counts what the window holds and lets older buckets drop out whole', () => {
    let now = 1_000_000;
    const window = createFailureWindow({ windowMs: 10_000, buckets: 10, now: () => now });
    window.record(true);
    window.record(false);
    now += 4000;
    window.record(true);
    expect(window.counts()).toEqual({ attempts: 3, failures: 2 });
    // The first two are 10 s old: their bucket has left the window; the third has not.
    now += 6000;
    expect(window.counts()).toEqual({ attempts: 1, failures: 1 });
    now += 5000;
    expect(window.counts()).toEqual({ attempts: 0, failures: 0 });
  });

  it('starts a reused slot from zero', () => {
    let now = 0;
    const window = createFailureWindow({ windowMs: 1000, buckets: 2, now: () => now });
    window.record(true);
    now = 2000; // the same slot of the ring, two windows later
    window.record(false);
    expect(window.counts()).toEqual({ attempts: 1, failures: 0 });
  });

  it('forgets everything when cleared', () => {
    const window = createFailureWindow({ windowMs: 60_000 });
    window.record(true);
    window.clear();
    expect(window.counts()).toEqual({ attempts: 0, failures: 0 });
  });
});
