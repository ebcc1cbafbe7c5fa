import { routeState } from '../../../src/routes/route-state';
import type { RouteStateFacts } from '../../../src/routes/route-state';

const FAILING = {
  since: '2025-03-01T10:00:00.000Z',
  attempts: 4,
  lastError: 'POST http://127.0.0.1:9/in: ECONNREFUSED',
};
const CLOSED = { open: false, probeAt: undefined };
const OPEN = { open: true, probeAt: Date.parse('2025-03-01T10:05:00.000Z') };

function facts(overrides: Partial<RouteStateFacts>): RouteStateFacts {
  return {
    paused: false,
    circuit: CLOSED,
    rateLimited: false,
    figures: { failing: null },
    ...overrides,
  };
}

describe('routeState: one judgement of what a route is doing', () => {
  it.each([
    ['running', facts({}), 'running'],
    ['rate-limited', facts({ rateLimited: true }), 'rate-limited'],
    [
      'failing over rate-limited',
      facts({ rateLimited: true, figures: { failing: FAILING } }),
      'failing',
    ],
    [
      'circuit open over failing',
      facts({ circuit: OPEN, figures: { failing: FAILING } }),
      'circuit open',
    ],
    [
      'paused over everything',
      facts({ paused: true, circuit: OPEN, rateLimited: true, figures: { failing: FAILING } }),
      'paused',
    ],
  ])('%s', (_case, given, expected) => {
    expect(routeState(given).state).toBe(expected);
  });

  it('says since when, how many and the last error of a failing route', () => {
    expect(routeState(facts({ figures: { failing: FAILING } }))).toEqual({
      state: 'failing',
      failing: FAILING,
      circuitOpenUntil: null,
    });
  });

  it('says until when an open circuit holds', () => {
    expect(routeState(facts({ circuit: OPEN })).circuitOpenUntil).toBe('2025-03-01T10:05:00.000Z');
    expect(routeState(facts({})).circuitOpenUntil).toBeNull();
  });
});
