import { createSessionStore } from '../../../src/console/auth/session-store';
import type { Principal } from '../../../src/console/auth/principal';

const principal: Principal = { name: 'ops', role: 'operator', via: 'session' };
const viewer: Principal = { name: 'reader', role: 'viewer', via: 'session' };
const otherViewer: Principal = { name: 'desk', role: 'viewer', via: 'session' };

describe('the console’s sessions', () => {
  it('sweeps expired sessions on its timer', async () => {
    let now = 1_000;
    const store = createSessionStore({
      maxSessions: 100,
      maxPerPrincipal: 100,
      sweepEveryMs: 10,
      now: () => now,
    });
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
    const store = createSessionStore({
      maxSessions: 2,
      maxPerPrincipal: 100,
      sweepEveryMs: 60_000,
      now: () => 0,
    });
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
    const store = createSessionStore({
      maxSessions: 2,
      maxPerPrincipal: 100,
      sweepEveryMs: 60_000,
      now: () => now,
    });
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

  it('ends the oldest session of the same principal past its own cap, not another’s', () => {
    const store = createSessionStore({
      maxSessions: 100,
      maxPerPrincipal: 2,
      sweepEveryMs: 60_000,
      now: () => 0,
    });
    try {
      store.add('ops', { principal, expiresAt: 10 });
      for (const id of ['v1', 'v2', 'v3']) store.add(id, { principal: viewer, expiresAt: 10 });
      expect(['ops', 'v1', 'v2', 'v3'].map((id) => store.get(id) !== undefined)).toEqual([
        true,
        false,
        true,
        true,
      ]);
    } finally {
      store.close();
    }
  });

  it('never ends an operator’s session for viewers’ sign-ins at the overall cap', () => {
    const store = createSessionStore({
      maxSessions: 3,
      maxPerPrincipal: 10,
      sweepEveryMs: 60_000,
      now: () => 0,
    });
    try {
      store.add('ops', { principal, expiresAt: 10 });
      const kept: boolean[] = [];
      for (let one = 0; one < 20; one += 1) {
        const reader = one % 2 === 0 ? viewer : otherViewer;
        kept.push(store.add(`v${String(one)}`, { principal: reader, expiresAt: 10 }));
      }
      expect(kept.every(Boolean)).toBe(true);
      expect(store.get('ops')).toBeDefined();
      expect(store.size()).toBe(3);
    } finally {
      store.close();
    }
  });

  it('ends the busiest viewer’s oldest session for an operator’s sign-in at the cap', () => {
    const store = createSessionStore({
      maxSessions: 3,
      maxPerPrincipal: 10,
      sweepEveryMs: 60_000,
      now: () => 0,
    });
    try {
      store.add('a1', { principal: viewer, expiresAt: 10 });
      store.add('b1', { principal: otherViewer, expiresAt: 10 });
      store.add('b2', { principal: otherViewer, expiresAt: 10 });
      expect(store.add('ops', { principal, expiresAt: 10 })).toBe(true);
      expect(['a1', 'b1', 'b2', 'ops'].map((id) => store.get(id) !== undefined)).toEqual([
        true,
        false,
        true,
        true,
      ]);
    } finally {
      store.close();
    }
  });

  it('refuses a viewer’s sign-in when only operators hold sessions at the cap', () => {
    const store = createSessionStore({
      maxSessions: 1,
      maxPerPrincipal: 10,
      sweepEveryMs: 60_000,
      now: () => 0,
    });
    try {
      store.add('ops', { principal, expiresAt: 10 });
      expect(store.add('v', { principal: viewer, expiresAt: 10 })).toBe(false);
      expect(store.get('ops')).toBeDefined();
      expect(store.get('v')).toBeUndefined();
    } finally {
      store.close();
    }
  });
});
