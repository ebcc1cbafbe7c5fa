import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

export interface HistoryMetricsSources {
  /** Records waiting in the outbox (the writer's `backlog()`: XLEN of the stream). */
  readonly backlog: () => Promise<number>;
  /** Records the recorder dropped (the recorder's `dropped()`). */
  readonly dropped?: () => number;
  /** Records the writer set aside, PostgreSQL having refused them for their data. */
  readonly setAside?: () => number;
  /** How long the outbox's oldest record has waited, in milliseconds (0: empty). */
  readonly oldestAgeMs?: () => Promise<number>;
}

/**
 * `svcws_history_backlog` and `svcws_history_outbox_oldest_seconds` (gauges, read at each scrape),
 * `svcws_history_dropped_total` and `svcws_history_set_aside_total` on the worker's registry. A
 * growing backlog or an old oldest record is PostgreSQL away, too slow or stuck; deliveries go on
 * meanwhile.
 */
export function registerHistoryMetrics(registry: Registry, sources: HistoryMetricsSources): void {
  new Gauge({
    name: 'svcws_history_backlog',
    help: 'History records waiting in Redis to be written to PostgreSQL',
    registers: [registry],
    async collect() {
      try {
        this.set(await sources.backlog());
      } catch {
        // Redis away: the gauge keeps its last value rather than failing the scrape.
      }
    },
  });
  const { dropped, setAside, oldestAgeMs } = sources;
  if (dropped !== undefined) {
    countFrom(
      registry,
      'svcws_history_dropped_total',
      'History records dropped: the outbox was full (HISTORY_BACKLOG_MAX), Redis failed, or the ' +
        'record could not be made from its event (logged with the error type)',
      dropped,
    );
  }
  if (setAside !== undefined) {
    countFrom(
      registry,
      'svcws_history_set_aside_total',
      'History records PostgreSQL refused for their data, set aside (events history set-aside)',
      setAside,
    );
  }
  if (oldestAgeMs !== undefined) {
    new Gauge({
      name: 'svcws_history_outbox_oldest_seconds',
      help: 'How long the oldest history record has waited in Redis to be written (0: none waits)',
      registers: [registry],
      async collect() {
        try {
          this.set((await oldestAgeMs()) / 1000);
        } catch {
          // Redis away: the gauge keeps its last value rather than failing the scrape.
        }
      },
    });
  }
}

/** A counter following a running total read at each scrape. */
function countFrom(registry: Registry, name: string, help: string, total: () => number): void {
  let reported = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = total();
      if (now > reported) this.inc(now - reported);
      reported = now;
    },
  });
}
