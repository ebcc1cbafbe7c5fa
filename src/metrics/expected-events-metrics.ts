import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { ExpectedEventState } from './expected-event-state';

/**
 * `svcws_expected_event_age_seconds{institution, rule}` and
 * `svcws_expected_event_threshold_seconds{institution, rule}` (deploy/prometheus/alerts.yml,
 * SvcwsExpectedEventMissing), read at each scrape. The labels come from EXPECTED_EVENTS_FILE
 * (its rules × the institutions), never from an event: the series are as many as the file says.
 */
export function registerExpectedEventsMetrics(
  registry: Registry,
  read: () => Promise<readonly ExpectedEventState[]>,
): void {
  // prom-client collects the gauges side by side: one read from Redis serves both.
  let inFlight: Promise<readonly ExpectedEventState[]> | undefined;
  const states = (): Promise<readonly ExpectedEventState[]> => {
    inFlight ??= read().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  const gauge = (name: string, help: string, value: (state: ExpectedEventState) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['institution', 'rule'] as const,
      registers: [registry],
      async collect() {
        const now = await states();
        this.reset();
        for (const state of now) {
          this.set({ institution: state.institution, rule: state.rule }, value(state));
        }
      },
    });
  gauge(
    'svcws_expected_event_age_seconds',
    'Seconds since the last event that met the rule (or since the rule is watched), by institution and rule',
    (state) => state.ageSeconds,
  );
  gauge(
    'svcws_expected_event_threshold_seconds',
    'How long an expected event may be absent (EXPECTED_EVENTS_FILE everyHours), by institution and rule',
    (state) => state.everyHours * 3600,
  );
}
