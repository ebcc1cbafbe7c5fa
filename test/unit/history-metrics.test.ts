import { Registry } from 'prom-client';
import { registerHistoryMetrics } from '../../src/history/history-metrics';

describe('the history metrics', () => {
  it('reads the backlog and the dropped count at each scrape', async () => {
    const registry = new Registry();
    let backlog = 12;
    let dropped = 0;
    registerHistoryMetrics(registry, {
      backlog: () => Promise.resolve(backlog),
      dropped: () => dropped,
    });
    expect(await registry.metrics()).toMatch(/svcws_history_backlog 12/);
    backlog = 0;
    dropped = 3;
    const text = await registry.metrics();
    expect(text).toMatch(/svcws_history_backlog 0/);
    expect(text).toMatch(/svcws_history_dropped_total 3/);
  });
});
