import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';

/** Counts recovered job_ends into `registry`: pass as the reconciliation's `onRecovered`. */
export type CountRecovered = (institution: string | undefined, count: number) => void;

/**
 * `svcws_recovered_events_total{institution}`: job_ends the platform never delivered, found by the
 * reconciliation and queued (docs/worker.md, "Reconciliation"). The label is the institution's
 * code (empty for a single institution without INSTITUTION_CODE): as many series as institutions.
 */
export function registerRecoveredEvents(registry: Registry): CountRecovered {
  const recovered = new Counter({
    name: 'svcws_recovered_events_total',
    help: 'job_end events the platform never delivered, found through the jobs API and queued',
    labelNames: ['institution'] as const,
    registers: [registry],
  });
  return (institution, count) => {
    recovered.inc({ institution: institution ?? '' }, count);
  };
}
