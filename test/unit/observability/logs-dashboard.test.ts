import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { evaluateLogql } from '../../helpers/logql/evaluate-logql';
import type { ShippedLine } from '../../helpers/logql/evaluate-logql';
import { LOGS_DASHBOARD, logsDashboardQueries } from '../../helpers/logql/logs-dashboard';
import { LogqlUnsupported, planOf } from '../../helpers/logql/logql-plan';

const ROOT = join(__dirname, '../../..');
/** Stream labels of bounded cardinality: what the shipping recipes set (docs/logs.md). */
const STREAM_LABELS = new Set(['process', 'institution']);

describe('the Loki dashboard (deploy/grafana/svcws-logs.json)', () => {
  const queries = logsDashboardQueries();

  it('has a query for each figure the log dashboards are asked for, each parsed by Grafana’s LogQL grammar', () => {
    expect(queries.map((query) => query.panel)).toEqual([
      'Events received per institution and kind',
      'Refusals by reason',
      'Deliveries per route',
      'Failed attempts per route',
      'End-to-end latency p95 per route (received → delivered)',
      'Attempt duration p95 per route',
      'job_end downloads per institution',
      'Records downloaded per institution',
      'Operator actions',
    ]);
    // logsDashboardQueries planned each: a syntax error or a form the reader does not know throws.
    for (const query of queries) expect(query.plan.pipeline[0]).toEqual({ kind: 'json' });
  });

  it('selects streams by bounded labels only, never an event id', () => {
    for (const query of queries) {
      const labels = query.plan.selector.map((matcher) => matcher.label);
      expect({
        panel: query.panel,
        unbounded: labels.filter((label) => !STREAM_LABELS.has(label)),
      }).toEqual({
        panel: query.panel,
        unbounded: [],
      });
      expect(query.expr).not.toMatch(/eventId|requestId|queueJobId/);
    }
  });

  it('reads from the Loki data source compose provisions', () => {
    const dashboard = readFileSync(LOGS_DASHBOARD, 'utf8');
    const provisioned = parse(
      readFileSync(join(ROOT, 'deploy/grafana/provisioning/datasources/loki.yml'), 'utf8'),
    ) as { datasources: { uid: string; type: string }[] };
    expect(provisioned.datasources).toEqual([
      expect.objectContaining({ uid: 'loki', type: 'loki' }),
    ]);
    const uids = new Set([...dashboard.matchAll(/"uid": "([^"]+)"/g)].map((match) => match[1]));
    expect(uids).toEqual(new Set(['loki', 'svcws-logs']));
  });

  it('refuses a LogQL error or a form the reader does not evaluate, naming it', () => {
    expect(() => planOf('sum(count_over_time({process="web"} | json [1m])')).toThrow(
      /syntax error/,
    );
    expect(() => planOf('rate({process="web"} | logfmt [1m])')).toThrow(LogqlUnsupported);
  });
});

describe('the LogQL reader the dashboard tests use', () => {
  const line = (process: string, fields: Record<string, unknown>): ShippedLine => ({
    labels: { process, institution: String(fields.institution ?? '') },
    line: fields,
  });
  const lines = [
    line('worker', {
      msg: 'delivered',
      route: 'a',
      attempt: 1,
      outcome: 'delivered',
      latencyMs: 10,
      institution: 'X',
    }),
    line('worker', {
      msg: 'delivered',
      route: 'a',
      attempt: 2,
      outcome: 'delivered',
      latencyMs: 30,
      institution: 'X',
    }),
    line('worker', {
      msg: 'delivered',
      route: 'b',
      attempt: 1,
      outcome: 'delivered',
      latencyMs: 20,
      institution: 'Y',
    }),
    line('worker', {
      msg: 'delivery failed',
      route: 'b',
      attempt: 1,
      outcome: 'retrying',
      institution: 'Y',
    }),
    line('worker', { msg: 'worker ready' }),
    line('web', { msg: 'delivery', httpStatus: 401, outcome: 'bad_signature', institution: 'X' }),
  ];

  it('counts by group, filters numbers (a missing label fails every filter but !=), and takes Prometheus’s quantile', () => {
    const count = planOf(
      'sum by (route) (count_over_time({process="worker"} | json | attempt > 0 [1m]))',
    );
    expect(evaluateLogql(count, lines)).toEqual(
      new Map([
        ['route=a', 2],
        ['route=b', 2],
      ]),
    );
    const p50 = planOf(
      'quantile_over_time(0.5, {process="worker"} | json | outcome="delivered" | unwrap latencyMs [1m]) by (route)',
    );
    expect(evaluateLogql(p50, lines)).toEqual(
      new Map([
        ['route=a', 20],
        ['route=b', 20],
      ]),
    );
    const others = planOf('count_over_time({process=~"w.+"} | json | attempt != 1 [1m])');
    // Anchored regular expressions: "w.+" takes worker and web; `attempt != 1` keeps the line without one.
    expect(evaluateLogql(others, lines)).toEqual(new Map([['', 3]]));
  });

  it('renames a JSON field that is also a stream label, as Loki does', () => {
    const plan = planOf(
      'sum by (institution) (count_over_time({process="web"} | json | institution_extracted="X" [1m]))',
    );
    expect(evaluateLogql(plan, lines)).toEqual(new Map([['institution=X', 1]]));
  });

  it('fails on a value that is not a number where the query needs one', () => {
    const plan = planOf('sum(sum_over_time({process="worker"} | json | unwrap route [1m]))');
    expect(() => evaluateLogql(plan, lines)).toThrow(/unwrap route: "a" is not a number/);
  });
});
