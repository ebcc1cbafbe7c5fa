import http from 'node:http';
import { ConfigError, loadConfig, WebConfig, WorkerConfig } from '../../../src/config';
import type { MetricsServer } from '../../../src/metrics/serve-metrics';
import { createWorkerMetrics } from '../../../src/metrics/worker-metrics';
import { listenerUnderTest } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';

const TOKEN = 'metrics-token-of-at-least-32-characters';

/**
 * A GET over node:http (fetch cannot choose its source address): the status and the body. With
 * `from`, the connection comes from that loopback address, i.e. from another client.
 */
function scrape(
  url: string,
  options: { token?: string; from?: string; method?: string } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` },
        ...(options.from === undefined ? {} : { localAddress: options.from }),
        agent: false,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

async function statuses(url: string, count: number, token?: string): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i += 1) {
    seen.push((await scrape(url, token === undefined ? {} : { token })).status);
  }
  return seen;
}

describe("the worker's /metrics with METRICS_TOKEN", () => {
  let server: MetricsServer;
  let url: string;

  beforeEach(async () => {
    const metrics = createWorkerMetrics({ defaultMetrics: false, token: TOKEN });
    metrics.jobProcessed('loan', 0.1);
    server = await metrics.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${String(server.port)}/metrics`;
  });
  afterEach(() => server.close());

  it('answers 401 without the bearer token or with another, 200 with it', async () => {
    expect((await scrape(url)).status).toBe(401);
    expect((await scrape(url, { token: 'nope' })).status).toBe(401);
    const right = await scrape(url, { token: TOKEN });
    expect(right.status).toBe(200);
    expect(right.text).toContain('svcws_worker_jobs_processed_total{action="loan"} 1');
    expect((await scrape(url, { token: TOKEN, method: 'HEAD' })).status).toBe(200);
  });

  it('answers 429 after 10 refused scrapes from one address, the right token too; another address still gets in', async () => {
    expect(await statuses(url, 10, 'guess')).toEqual(Array<number>(10).fill(401));
    expect((await scrape(url, { token: 'guess' })).status).toBe(429);
    expect((await scrape(url, { token: TOKEN })).status).toBe(429);
    expect((await scrape(url, { token: TOKEN, from: '127.0.0.2' })).status).toBe(200);
  });

  it('never limits scrapes with the right token', async () => {
    expect(await statuses(url, 25, TOKEN)).toEqual(Array<number>(25).fill(200));
  });
});

describe("the worker's /metrics on a chosen interface", () => {
  let server: MetricsServer | undefined;
  afterEach(() => server?.close());

  it('answers on that address only', async () => {
    server = await createWorkerMetrics({ defaultMetrics: false }).listen(0, '127.0.0.1');
    const path = `:${String(server.port)}/metrics`;
    expect((await scrape(`http://127.0.0.1${path}`)).status).toBe(200);
    await expect(scrape(`http://127.0.0.2${path}`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('answers on every interface without one (the default)', async () => {
    server = await createWorkerMetrics({ defaultMetrics: false }).listen(0);
    expect((await scrape(`http://127.0.0.2:${String(server.port)}/metrics`)).status).toBe(200);
  });
});

describe("the listener's /metrics on METRICS_PORT and METRICS_HOST", () => {
  let listener: ListenerUnderTest;
  afterEach(() => listener.close());

  it('moves off the webhooks port to its own, bound and behind the same token guard', async () => {
    listener = listenerUnderTest({
      env: { METRICS_PORT: '0', METRICS_HOST: '127.0.0.1', METRICS_TOKEN: TOKEN },
    });
    const webhooks = listener.app.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => webhooks.once('listening', resolve));
      const address = webhooks.address();
      const webPort = typeof address === 'object' && address !== null ? address.port : 0;
      expect((await scrape(`http://127.0.0.1:${String(webPort)}/metrics`)).status).toBe(404);
    } finally {
      webhooks.closeAllConnections();
      await new Promise((resolve) => webhooks.close(resolve));
    }
    const port = await listener.process.listenMetrics();
    const url = `http://127.0.0.1:${String(port)}/metrics`;
    const right = await scrape(url, { token: TOKEN });
    expect(right.status).toBe(200);
    expect(right.text).toContain('svcws_webhook_deliveries_total');
    await expect(scrape(`http://127.0.0.2:${String(port)}/metrics`)).rejects.toThrow(
      /ECONNREFUSED/,
    );
    expect(await statuses(url, 10)).toEqual(Array<number>(10).fill(401));
    expect((await scrape(url, { token: TOKEN })).status).toBe(429);
  });

  it('stays on the webhooks port without METRICS_PORT (as before)', async () => {
    listener = listenerUnderTest();
    expect(await listener.process.listenMetrics()).toBeUndefined();
  });
});

describe('the metrics keys', () => {
  it('refuse METRICS_HOST without METRICS_PORT, naming the key', () => {
    const env = { WEBHOOK_SECRET: 'a-webhook-secret-of-16+', METRICS_HOST: '127.0.0.1' };
    expect(() => loadConfig(WebConfig, env)).toThrow(ConfigError);
    expect(() => loadConfig(WebConfig, env)).toThrow(/METRICS_PORT \(required with METRICS_HOST\)/);
  });

  it('refuse a METRICS_TOKEN shorter than 32 characters in the listener and the worker, naming the key and never the value', () => {
    const short = 'metrics-token-0123456789-XYZ';
    const web = { WEBHOOK_SECRET: 'a-webhook-secret-of-16+', METRICS_TOKEN: short };
    const worker = { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY: 'key', METRICS_TOKEN: short };
    for (const load of [() => loadConfig(WebConfig, web), () => loadConfig(WorkerConfig, worker)]) {
      expect(load).toThrow(/METRICS_TOKEN \(at least 32 characters\)/);
      expect(load).not.toThrow(/XYZ/);
    }
  });

  it('give the worker METRICS_TOKEN and WORKER_METRICS_HOST, the loopback by default', () => {
    const base = { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY: 'key' };
    expect(loadConfig(WorkerConfig, base)).toHaveProperty('WORKER_METRICS_HOST', '127.0.0.1');
    expect(
      loadConfig(WorkerConfig, { ...base, WORKER_METRICS_HOST: '10.0.0.5', METRICS_TOKEN: TOKEN }),
    ).toMatchObject({ WORKER_METRICS_HOST: '10.0.0.5', METRICS_TOKEN: TOKEN });
  });
});
