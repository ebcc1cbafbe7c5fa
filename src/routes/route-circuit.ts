import { z } from 'zod';

/**
 * `circuit:` — per route, on unless `off`: after `failures` failed attempts in a row the route
 * opens (its deliveries wait in its queue), one delivery probes after `probeSeconds`, the wait
 * doubling after each failed probe up to `maxProbeSeconds`; a success closes it.
 */
export const RouteCircuit = z
  .union([
    z.literal('off'),
    z.strictObject({
      failures: z.number().int().min(1).max(10_000).default(10),
      probeSeconds: z.number().positive().max(86_400).default(30),
      maxProbeSeconds: z.number().positive().max(86_400).default(600),
    }),
  ])
  .default({ failures: 10, probeSeconds: 30, maxProbeSeconds: 600 });
export type RouteCircuit = z.infer<typeof RouteCircuit>;
