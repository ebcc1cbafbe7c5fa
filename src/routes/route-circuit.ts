import { z } from 'zod';

/**
 * `circuit.failureRate:` — the route also opens when more than `percent` % of its attempts failed
 * within the last `windowSeconds`, once at least `minAttempts` were made in it (fewer say too
 * little). Judged by each worker process on its own attempts (failure-window.ts). `off`: the
 * consecutive rule alone.
 */
export const RouteFailureRate = z.union(
  [
    z.literal('off'),
    z.strictObject({
      percent: z.number().min(1).max(99).default(50),
      windowSeconds: z.number().min(1).max(3600).default(60),
      minAttempts: z.number().int().min(1).max(100_000).default(20),
    }),
  ],
  { error: 'off, or { percent, windowSeconds, minAttempts }' },
);
export type RouteFailureRate = z.infer<typeof RouteFailureRate>;

const FAILURE_RATE_DEFAULT = { percent: 50, windowSeconds: 60, minAttempts: 20 } as const;

/**
 * `circuit:` — per route, on unless `off`: after `failures` failed attempts in a row, or more
 * than `failureRate.percent` % failed over its window, the route opens (its deliveries wait in its
 * queue), one delivery probes after `probeSeconds`, the wait doubling after each failed probe up to
 * `maxProbeSeconds`; a success closes it. The rate rule is on by default: a destination that
 * fails most deliveries but rarely ten in a row (an overloaded receiver, one bad node behind a
 * balancer) would otherwise be retried without end, every event several times.
 */
export const RouteCircuit = z
  .union(
    [
      z.literal('off'),
      z.strictObject({
        failures: z.number().int().min(1).max(10_000).default(10),
        failureRate: RouteFailureRate.default(FAILURE_RATE_DEFAULT),
        probeSeconds: z.number().positive().max(86_400).default(30),
        maxProbeSeconds: z.number().positive().max(86_400).default(600),
      }),
    ],
    { error: 'off, or { failures, failureRate, probeSeconds, maxProbeSeconds }' },
  )
  .default({
    failures: 10,
    failureRate: FAILURE_RATE_DEFAULT,
    probeSeconds: 30,
    maxProbeSeconds: 600,
  });
export type RouteCircuit = z.infer<typeof RouteCircuit>;
