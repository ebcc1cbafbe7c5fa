import { subscribe } from 'node:diagnostics_channel';

/**
 * Preloaded into every server the ingress bench starts (`node --require cpu-probe.js`),
 * so the server's own code is not changed to be measured — `ours` is src/bin/web.ts as it ships.
 * Counts requests as Node's HTTP server starts them, and answers the bench over IPC:
 * `'cpu'` → the CPU time (user + system) and requests since the last `'cpu'`, and the RSS;
 * `'rss'` → the RSS alone (sampled during the paced run, counters untouched).
 */
let requests = 0;
let since = process.cpuUsage();
subscribe('http.server.request.start', () => {
  requests += 1;
});
process.on('message', (message: unknown) => {
  if (message === 'rss') {
    process.send?.({ question: 'rss', rssBytes: process.memoryUsage.rss() });
  } else if (message === 'cpu') {
    const cpu = process.cpuUsage(since);
    process.send?.({
      question: 'cpu',
      cpuUs: cpu.user + cpu.system,
      requests,
      rssBytes: process.memoryUsage.rss(),
    });
    requests = 0;
    since = process.cpuUsage();
  }
});
