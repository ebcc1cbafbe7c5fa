import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';

/** Counts what a cap cut off: pass as the reconciliation target's `onCut`. */
export type CountReconcileCut = (institution: string | undefined, cap: string) => void;

/**
 * `svcws_reconcile_cuts_total{institution,cap}`: reconciliation runs or lists cut short by a
 * bound (src/worker/job-end/reconcile-bounds.ts; docs/worker.md, "Bounds"). A steady rise means
 * the platform's lists misbehave or a bound is too tight; the rest is left to the next run.
 */
export function registerReconcileCuts(registry: Registry): CountReconcileCut {
  const cuts = new Counter({
    name: 'svcws_reconcile_cuts_total',
    help: 'reconciliation runs or lists cut short by a bound (pages, repeated page, recovered, run time, budget)',
    labelNames: ['institution', 'cap'] as const,
    registers: [registry],
  });
  return (institution, cap) => {
    cuts.inc({ institution: institution ?? '', cap });
  };
}
