import { userInfo } from 'node:os';
import { evaluateLogql } from '../../helpers/logql/evaluate-logql';
import { logsDashboardQueries } from '../../helpers/logql/logs-dashboard';
import type { DashboardQuery } from '../../helpers/logql/logs-dashboard';
import { checkLineShapes } from '../../helpers/log-reference/check-line-shapes';
import { shapeOf } from '../../helpers/log-reference/line-shape';
import { readLogReference } from '../../helpers/log-reference/log-reference';
import { loggedRun } from './support/logged-run';
import type { LoggedRun } from './support/logged-run';

const EVENTS = 60;

/** A panel's figure over the run's lines (one window), its groups as `label=value,…` keys. */
function figureOf(run: LoggedRun, title: string): Map<string, number> {
  const query = logsDashboardQueries().find((one: DashboardQuery) => one.panel === title);
  if (query === undefined) throw new Error(`no panel "${title}"`);
  return evaluateLogql(query.plan, run.lines);
}

const sorted = (map: ReadonlyMap<string, number>): [string, number][] =>
  [...map].sort(([a], [b]) => a.localeCompare(b));

describe('the Loki dashboard’s panels, computed from the lines of a real run, against what happened', () => {
  let started: LoggedRun | undefined;
  beforeAll(async () => {
    started = await loggedRun(EVENTS);
  });
  afterAll(async () => {
    await started?.close();
  });
  const run = (): LoggedRun => {
    if (started === undefined) throw new Error('the run did not start');
    return started;
  };
  const figure = (title: string): Map<string, number> => figureOf(run(), title);

  it('counts the events received per institution and kind, and the refusals by reason', () => {
    const received = [...run().truth.received].map(([key, count]): [string, number] => {
      const [institution = '', action = ''] = key.split(' ');
      return [`institution=${institution},action=${action}`, count];
    });
    expect(sorted(figure('Events received per institution and kind'))).toEqual(
      received.sort(([a], [b]) => a.localeCompare(b)),
    );
    expect(sorted(figure('Refusals by reason'))).toEqual(
      sorted(new Map([...run().truth.refused].map(([outcome, n]) => [`outcome=${outcome}`, n]))),
    );
  });

  it('counts the deliveries and the failed attempts per route', () => {
    const { truth } = run();
    expect(sorted(figure('Deliveries per route'))).toEqual([
      ['route=archive', truth.delivered.get('archive')],
      ['route=hook', truth.delivered.get('hook')],
    ]);
    expect(sorted(figure('Failed attempts per route'))).toEqual([
      ['route=broken,outcome=failed', truth.brokenLoans],
      ['route=broken,outcome=retrying', truth.brokenLoans],
    ]);
  });

  it('gives each route a latency from receipt and an attempt duration, within the run', () => {
    const latency = figure('End-to-end latency p95 per route (received → delivered)');
    const duration = figure('Attempt duration p95 per route');
    expect([...latency.keys()].sort()).toEqual(['route=archive', 'route=hook']);
    expect([...duration.keys()].sort()).toEqual(['route=archive', 'route=broken', 'route=hook']);
    for (const value of [...latency.values(), ...duration.values()]) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(120_000);
    }
  });

  it('counts the job_end downloads and their records per institution', () => {
    const downloads = [...run().truth.downloads];
    expect(sorted(figure('job_end downloads per institution'))).toEqual(
      downloads.map(([institution, one]) => [`institution=${institution}`, one.runs]),
    );
    expect(sorted(figure('Records downloaded per institution'))).toEqual(
      downloads.map(([institution, one]) => [`institution=${institution}`, one.records]),
    );
  });

  it('counts the operator actions by action and actor', () => {
    const actor = `cli:${userInfo().username}`;
    expect(sorted(figure('Operator actions'))).toEqual(
      sorted(
        new Map(
          [...run().truth.operatorActions].map(([action, n]) => [
            `operatorAction=${action},actor=${actor}`,
            n,
          ]),
        ),
      ),
    );
  });

  it('writes only lines docs/logs.md names, each field of one type, every stage with its event fields', () => {
    const lines = run().lines.map((one) => one.line);
    const shapes = lines.flatMap((line) => shapeOf(line) ?? []);
    expect(checkLineShapes(shapes, readLogReference())).toEqual([]);
    // Each stage of an event names its institution, action and id (a refusal before the
    // signature holds has read nothing of the body: it has none of them).
    const stages = ['delivery', 'event run ended', 'delivered', 'job_end: records stored'];
    for (const msg of stages) {
      const ofStage = lines.filter((line) => line.msg === msg && !(Number(line.httpStatus) >= 400));
      expect(ofStage.length).toBeGreaterThan(0);
      for (const line of ofStage)
        expect(line).toEqual(
          expect.objectContaining({
            institution: expect.any(String),
            action: expect.any(String),
            eventId: expect.any(String),
          }),
        );
    }
  });
});
