import type { Router } from 'express';

/** What every sandbox area gets from the composition in create-sandbox.ts. */
export interface SandboxContext {
  readonly institution: { readonly code: string; readonly name: string };
  /** Seeded PRNG in [0, 1): same SANDBOX_SEED, same data. */
  readonly random: () => number;
  /** `http://127.0.0.1:<port>` once listening; used to build `link` fields. */
  readonly publicBaseUrl: () => string;
  readonly now: () => Date;
}

/**
 * An area registers its `/svcws/v1` routes on the router (paths relative to `/svcws/v1`) and keeps
 * its own in-memory state, seeded when the function runs. `reset()` (admin route) re-runs it.
 */
export type SandboxArea = (router: Router, ctx: SandboxContext) => void;
