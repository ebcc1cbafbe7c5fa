import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { parse, stringify } from 'yaml';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { historyStreamKey } from '../../../src/history';
import { TEST_DATABASE_URL, dropSchema, uniqueSchema } from '../../helpers/history-database';
import { loanEventJson } from '../../helpers/loan-event';
import { exportedMetricNames, promqlMetricNames } from '../../helpers/promql-metric-names';
import { runPromtool } from '../../helpers/promtool';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { spawnWorker } from '../worker/support/child-process';
import type { ChildWorker } from '../worker/support/child-process';

const ROOT = join(__dirname, '../../..');
const SECRET = 'dashboard-metrics-secret';

/** Metrics other programs export: Prometheus itself (`up`) and redis_exporter (`redis_*`). */
const EXTERNAL = [/^up$/, /^redis_/];
/**
 * Metrics the rules and the dashboard use before the process exports them. Remove each line once
 * its part has landed; this test then checks it like the others.
 */
const NOT_YET_EXPORTED = new Set<string>([]);

interface RuleFile {
  groups: { name: string; rules: { record?: string; alert?: string; expr: string }[] }[];
}
interface Panel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

async function dashboardExpressions(): Promise<{ title: string; expr: string }[]> {
  const dashboard = JSON.parse(await readFile(join(ROOT, 'deploy/grafana/svcws.json'), 'utf8')) as {
    panels: Panel[];
  };
  const all = (panels: Panel[]): Panel[] =>
    panels.flatMap((one) => [one, ...all(one.panels ?? [])]);
  return all(dashboard.panels).flatMap((panel) =>
    (panel.targets ?? []).flatMap((target) =>
      target.expr === undefined ? [] : [{ title: panel.title ?? '', expr: target.expr }],
    ),
  );
}

/** What Grafana puts in place of the dashboard's variables before Prometheus sees a query. */
function asGrafanaSends(expr: string): string {
  return expr.replace(/\$__rate_interval/g, '5m').replace(/\$\{?institution\}?/g, '.*');
}

async function scrape(port: unknown): Promise<string> {
  const answer = await fetch(`http://127.0.0.1:${String(port)}/metrics`);
  expect(answer.status).toBe(200);
  return answer.text();
}

describe('the Grafana dashboard and the alert rules against the real listener and worker', () => {
  let dir: string;
  let queueName: string;
  // The history is on, so its backlog gauge is exported like every other metric.
  const schema = uniqueSchema('dash');
  const children: ChildWorker[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-dashboard-'));
    queueName = uniqueQueueName('dashboard');
  });
  afterAll(async () => {
    for (const child of children.splice(0)) {
      if (child.child.exitCode === null && child.child.signalCode === null)
        child.child.kill('SIGTERM');
      await child.exited();
    }
    await obliterateQueue(queueName);
    await obliterateQueue(routeQueueName(queueName, 'archive'));
    const redis = new Redis(TEST_REDIS_URL);
    await redis.del(historyStreamKey(queueName));
    redis.disconnect();
    await dropSchema(schema);
    await rm(dir, { recursive: true, force: true });
  });

  it('use only metrics the processes export, in queries that parse', async () => {
    const routesFile = join(dir, 'routes.yaml');
    await writeFile(
      routesFile,
      `routes:\n  - name: archive\n    to: { file: { dir: "${join(dir, 'archive')}" } }\n`,
    );
    const web = spawnWorker('src/bin/web.ts', {
      PORT: '0',
      WEBHOOK_SECRET: SECRET,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: queueName,
      // With a spool, as compose runs it: its gauges are exported (and the spool alert reads them).
      SPOOL_DIR: join(dir, 'spool'),
    });
    children.push(web);
    const worker = spawnWorker('src/bin/worker.ts', {
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: queueName,
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_API_KEY: 'unused',
      RECORDS_DIR: join(dir, 'records'),
      WORKER_METRICS_PORT: '0',
      ROUTES_FILE: routesFile,
      DATABASE_URL: TEST_DATABASE_URL,
      HISTORY_KEY: 'dashboard-history-key-of-at-least-32-chars',
      HISTORY_SCHEMA: schema,
    });
    children.push(worker);
    const webReady = await web.waitForLine((line) => line.msg === 'listener ready');
    const workerReady = await worker.waitForLine((line) => line.msg === 'worker ready');

    const body = loanEventJson(`dash-${queueName}`, 'LIB_DASH');
    const answer = await fetch(`http://127.0.0.1:${String(webReady.port)}/webhooks`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Svc-Signature': signWebhookBody(SECRET, body),
      },
      body,
    });
    expect(answer.status).toBe(200);
    // Routed and written: the route counters have a series, not just a declaration.
    const until = Date.now() + 30_000;
    while ((await readdir(join(dir, 'archive')).catch(() => [])).length === 0 && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 50));

    const listenerText = await scrape(webReady.port);
    const workerText = await scrape(workerReady.metricsPort);
    expect(listenerText).toMatch(
      /^svcws_webhook_last_event_timestamp_seconds\{institution="LIB_DASH",action="loan"\} \d/m,
    );
    expect(workerText).toMatch(/^svcws_route_delivered_total\{route="archive"\} 1$/m);
    const exported = new Set([
      ...exportedMetricNames(listenerText),
      ...exportedMetricNames(workerText),
    ]);

    const rules = parse(
      await readFile(join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8'),
    ) as RuleFile;
    const ruleRows = rules.groups.flatMap((group) => group.rules);
    const recorded = new Set(
      ruleRows.flatMap((rule) => (rule.record === undefined ? [] : [rule.record])),
    );
    const panels = await dashboardExpressions();
    const used = new Map<string, string>();
    for (const rule of ruleRows)
      for (const name of promqlMetricNames(rule.expr))
        used.set(name, rule.alert ?? rule.record ?? '');
    for (const panel of panels)
      for (const name of promqlMetricNames(panel.expr)) used.set(name, `panel "${panel.title}"`);

    // The reading of the queries finds what they select (a check that cannot pass empty).
    expect(used.has('svcws_route_delivery_latency_seconds_bucket')).toBe(true);
    expect(used.has('svcws_webhook_last_event_timestamp_seconds')).toBe(true);
    expect(used.has('bullmq_job_count')).toBe(true);
    const missing = [...used]
      .filter(([name]) => !exported.has(name) && !recorded.has(name))
      .filter(([name]) => !NOT_YET_EXPORTED.has(name) && !EXTERNAL.some((re) => re.test(name)))
      .map(([name, where]) => `${name} (${where})`);
    expect(missing).toEqual([]);

    // Every panel's query, as Grafana sends it, checked by Prometheus's own parser.
    const generated = join(dir, 'dashboard-rules.yml');
    await writeFile(
      generated,
      stringify({
        groups: [
          {
            name: 'dashboard',
            rules: panels.map((panel, index) => ({
              record: `dashboard:panel_${String(index)}`,
              expr: asGrafanaSends(panel.expr),
            })),
          },
        ],
      }),
    );
    const check = await runPromtool(['check', 'rules', generated]);
    expect(check.output).toContain(`SUCCESS: ${String(panels.length)} rules found`);
    expect(check.code).toBe(0);
  });
});
