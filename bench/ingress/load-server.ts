import autocannon from 'autocannon';
import type { BenchServer } from './bench-server';
import type { SignedBody } from './signed-bodies';

export interface LoadFigures {
  /** Server CPU time per delivery, µs. */
  cpuUs: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Deliveries past the prepared bodies (their ids repeat: the duplicate path). */
  repeated: number;
  /** Highest RSS sampled during the load (only when `sampleRss`), bytes. */
  maxRssBytes: number;
}

export interface LoadOptions {
  contentType: string;
  bodies: readonly SignedBody[];
  durationS: number;
  connections: number;
  /** Requests per second in all, when the load is paced. */
  overallRate?: number;
  sampleRss?: boolean;
}

/** One autocannon run against one server; the server's CPU is read right before and after. */
export async function loadServer(server: BenchServer, options: LoadOptions): Promise<LoadFigures> {
  const { bodies, contentType } = options;
  let n = 0;
  let maxRssBytes = 0;
  const sampler = options.sampleRss
    ? setInterval(() => {
        void server.rss().then((rss) => (maxRssBytes = Math.max(maxRssBytes, rss)));
      }, 250)
    : undefined;
  await server.sample(); // resets the server's counters
  const result = await autocannon({
    url: server.url,
    connections: options.connections,
    duration: options.durationS,
    ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
    requests: [
      {
        setupRequest: (request) => {
          const next = bodies[n++ % bodies.length];
          return {
            ...request,
            method: 'POST',
            body: next?.body ?? '',
            headers: { 'content-type': contentType, 'x-svc-signature': next?.signature ?? '' },
          };
        },
      },
    ],
  });
  const after = await server.sample();
  clearInterval(sampler);
  return {
    cpuUs: after.cpuUs / Math.max(1, after.requests),
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    repeated: Math.max(0, n - bodies.length),
    maxRssBytes: Math.max(maxRssBytes, after.rssBytes),
  };
}
