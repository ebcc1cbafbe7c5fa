import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { runPromtool } from '../../helpers/promtool';

const ROOT = join(__dirname, '../../..');
const RULES = join(ROOT, 'deploy/prometheus/alerts.yml');
const RULE_TESTS = join(ROOT, 'deploy/prometheus/alerts.test.yml');

interface Rule {
  alert?: string;
  record?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface AlertCase {
  alertname: string;
  exp_alerts?: unknown[];
}

function alertsOf(file: string): Rule[] {
  const tree = parse(readFileSync(file, 'utf8')) as { groups: { rules: Rule[] }[] };
  return tree.groups.flatMap((group) => group.rules).filter((rule) => rule.alert !== undefined);
}

/** GitHub's anchor of a markdown heading: lower-cased, punctuation dropped, spaces to dashes. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of markdown.split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    anchors.add(
      heading
        .trim()
        .toLowerCase()
        .replace(/[^a-z0-9 _-]/g, '')
        .replace(/ /g, '-'),
    );
  }
  return anchors;
}

describe('deploy/prometheus alert rules', () => {
  it('pass promtool check rules', async () => {
    const run = await runPromtool(['check', 'rules', RULES]);
    expect(run.output).toContain('SUCCESS');
    expect(run.code).toBe(0);
  });

  it('load from the compose Prometheus config (promtool check config)', async () => {
    const run = await runPromtool([
      'check',
      'config',
      join(ROOT, 'deploy/prometheus/prometheus.yml'),
    ]);
    expect(run.output).toContain('SUCCESS');
    expect(run.code).toBe(0);
  });

  it('pass their unit tests (promtool test rules)', async () => {
    const run = await runPromtool(['test', 'rules', RULE_TESTS]);
    expect(run.output).toContain('SUCCESS');
    expect(run.code).toBe(0);
    // promtool evaluates every case's whole series: seconds on a quiet machine, more when loaded.
  });

  it('give every alert a severity, a summary, a description and a runbook section that exists', () => {
    const anchors = anchorsOf(readFileSync(join(ROOT, 'docs/operations.md'), 'utf8'));
    const alerts = alertsOf(RULES);
    expect(alerts.length).toBeGreaterThanOrEqual(13);
    for (const rule of alerts) {
      const where = rule.alert ?? '';
      expect({ where, severity: rule.labels?.severity }).toEqual({
        where,
        severity: expect.stringMatching(/^(critical|warning|info)$/),
      });
      expect({ where, summary: rule.annotations?.summary }).toEqual({
        where,
        summary: expect.any(String),
      });
      expect({ where, description: rule.annotations?.description }).toEqual({
        where,
        description: expect.any(String),
      });
      const runbook = rule.annotations?.runbook_url ?? '';
      expect({ where, runbook }).toEqual({
        where,
        runbook: expect.stringMatching(/^docs\/operations\.md#/),
      });
      expect({ where, anchorExists: anchors.has(runbook.split('#')[1] ?? '') }).toEqual({
        where,
        anchorExists: true,
      });
    }
  });

  it('test every alert with a case that fires it and a case that does not', () => {
    const tree = parse(readFileSync(RULE_TESTS, 'utf8')) as {
      tests: { alert_rule_test?: AlertCase[] }[];
    };
    const cases = tree.tests.flatMap((one) => one.alert_rule_test ?? []);
    for (const { alert } of alertsOf(RULES)) {
      const mine = cases.filter((one) => one.alertname === alert);
      const fires = mine.some((one) => (one.exp_alerts ?? []).length > 0);
      const quiet = mine.some((one) => (one.exp_alerts ?? []).length === 0);
      expect({ alert, fires, quiet }).toEqual({ alert, fires: true, quiet: true });
    }
  });
});
