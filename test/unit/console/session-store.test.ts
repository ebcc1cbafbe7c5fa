import { createSessionStore } from '../../../src/console/auth/session-store';
import type { Principal } from '../../../src/console/auth/principal';

const principal: Principal = { name: 'ops', role: 'operator', via: 'session' };

describe('the console’s sessions', () => {
  it('sweeps expired sessions on its timer', async () => {
    let now = 1_000;
    const store = createSessionStore({ maxSessions: 100, sweepEveryMs: 10, now: () => now });
    try {
      store.add('a', { principal, expiresAt: 2_000 });
      store.add('b', { principal, expiresAt: 5_000 });
      now = 3_000;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(store.size()).toBe(1);
      expect(store.get('b')?.principal).toEqual(principal);
    } finally {
      store.close();
    }
  });

  it('ends the oldest live session when a sign-in would pass the cap', () => {
    const store = createSessionStore({ maxSessions: 2, sweepEveryMs: 60_000, now: () => 0 });
    try {
      store.add('first', { principal, expiresAt: 10 });
      store.add('second', { principal, expiresAt: 10 });
      store.add('third', { principal, expiresAt: 10 });
      expect(store.size()).toBe(2);
      expect(store.get('first')).toBeUndefined();
      expect(store.get('second')).toBeDefined();
      expect(store.get('third')).toBeDefined();
    } finally {
      store.close();
    }
  });

  it('drops expired sessions before the oldest live one at the cap', () => {
    let now = 0;
    const store = createSessionStore({ maxSessions: 2, sweepEveryMs: 60_000, now: () => now });
    try {
      store.add('live', { principal, expiresAt: 100 });
      store.add('short', { principal, expiresAt: 5 });
      now = 10;
      store.add('new', { principal, expiresAt: 100 });
      expect([store.get('live'), store.get('new')].every((one) => one !== undefined)).toBe(true);
    } finally {
      store.close();
    }
  });
});
