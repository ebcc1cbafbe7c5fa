import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

export interface HistoryMetricsSources {
  /** Records waiting in the outbox (the writer's `backlog()`: XLEN of the stream). */
  readonly backlog: () => Promise<number>;
  /** Records the recorder dropped (the recorder's `dropped()`). */
  readonly dropped?: () => number;
}

/**
 * `svcws_history_backlog` (gauge, read at each scrape) and `svcws_history_dropped_total` on the
 * worker's registry. A growing backlog is PostgreSQL away or too slow; deliveries go on meanwhile.
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
  const { dropped } = sources;
  if (dropped !== undefined) {
    let reported = 0;
    new Counter({
      name: 'svcws_history_dropped_total',
      help: 'History records dropped because the outbox was full (HISTORY_BACKLOG_MAX) or Redis failed',
      registers: [registry],
      collect() {
        const now = dropped();
        if (now > reported) this.inc(now - reported);
        reported = now;
      },
    });
  }
}
