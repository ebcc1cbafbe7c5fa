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

  it('reads the records set aside and the outbox oldest record age at each scrape', async () => {
    const registry = new Registry();
    let setAside = 0;
    let oldestMs = 0;
    registerHistoryMetrics(registry, {
      backlog: () => Promise.resolve(0),
      setAside: () => setAside,
      oldestAgeMs: () => Promise.resolve(oldestMs),
    });
    const before = await registry.metrics();
    expect(before).toMatch(/svcws_history_set_aside_total 0/);
    expect(before).toMatch(/svcws_history_outbox_oldest_seconds 0/);
    setAside = 2;
    oldestMs = 90_500;
    const after = await registry.metrics();
    expect(after).toMatch(/svcws_history_set_aside_total 2/);
    expect(after).toMatch(/svcws_history_outbox_oldest_seconds 90.5/);
  });
});
