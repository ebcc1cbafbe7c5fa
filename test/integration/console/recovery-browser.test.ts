import type { Page } from 'playwright-core';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import {
  launchTestBrowser,
  screenshotWithoutViolations,
  seriousA11yViolations,
  signedInPage,
} from '../../helpers/console-browser';
import type { TestBrowser } from '../../helpers/console-browser';
import {
  HISTORY_CONSOLE_TOKENS as TOKENS,
  startConsoleWithHistory,
} from '../../helpers/console-with-history';
import type { ConsoleWithHistory } from '../../helpers/console-with-history';
import { deliveredAttempt, fixtureEvent } from '../../helpers/history-events';
import { recordFinalFailures } from '../../helpers/record-final-failures';

describe('recover since, records set aside and recovered events in a real browser', () => {
  let consoleUnderTest: ConsoleWithHistory;
  let browser: TestBrowser;
  const since = new Date(Date.now() - 60_000).toISOString();
  const failed = ['rb-loan-1', 'rb-loan-2'].map((id) => fixtureEvent('loan-created', { id }));
  const plain = fixtureEvent('job-end', { id: 'recovered-77001' });
  const recovered: CanonicalEvent = {
    ...plain,
    meta: { format: 'json', receivedAt: new Date().toISOString(), requestId: 'r', recovered: true },
  };
  const setAsideFor = fixtureEvent('bib-updated', { id: 'rb-bib-1' });

  const signIn = (token: string): Promise<Page> =>
    signedInPage(browser, consoleUnderTest.url, token);
  const checked = screenshotWithoutViolations;

  beforeAll(async () => {
    // Slow deliveries (one every 4 s) so that the recovery's page shows it running first.
    consoleUnderTest = await startConsoleWithHistory({ replayRatePerSecond: 0.25 });
    await consoleUnderTest.record([...failed, recovered, setAsideFor], async (recorder) => {
      await recordFinalFailures(recorder, failed, {
        route: 'loans',
        attempt: 10,
        status: 503,
        error: 'HTTP 503 Service Unavailable',
        durationMs: 40,
      });
      // A duration past PostgreSQL's integer: the writer sets this attempt aside.
      await recorder.attempt(deliveredAttempt(setAsideFor, 1));
    });
    browser = await launchTestBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await consoleUnderTest?.close();
  });

  it('counts what failed and never succeeded, then recovers it in the background', async () => {
    const page = await signIn(TOKENS.operator);
    await page.click('nav a:has-text("Recover since")');
    await page.selectOption('#rc-route', 'loans');
    await page.fill('#rc-since', since);
    await page.click('button:has-text("Count (dry run)")');
    await page.waitForSelector('text=2 events failed and never succeeded since');
    expect(await page.locator('tbody tr').count()).toBe(2);
    expect(await page.textContent('tbody')).toContain('HTTP 503 Service Unavailable');
    await checked(page, 'recover-since');
    await page.click('button:has-text("Send 2 again to")');
    await page.waitForURL(/\/recoveries\/[0-9a-f]{8}$/);
    expect(await page.textContent('main')).toContain('running');
    await checked(page, 'recovery-running');
  });

  it('lists the records set aside for an operator, and only their count for a viewer', async () => {
    const operator = await signIn(TOKENS.operator);
    await operator.click('nav a:has-text("Set aside")');
    await operator.waitForSelector('text=1 records set aside');
    expect(await operator.textContent('tbody')).toContain('22003');
    expect(await operator.textContent('tbody')).toContain('rb-bib-1');
    await checked(operator, 'set-aside');
    const viewer = await signIn(TOKENS.viewer);
    await viewer.goto(`${consoleUnderTest.url}/set-aside`);
    await viewer.waitForSelector('text=1 records set aside');
    expect(await viewer.locator('table').count()).toBe(0);
    expect(await seriousA11yViolations(viewer)).toEqual([]);
  });

  it('GET /api/v1/set-aside: the entries for an operator (never the record), the count for a viewer', async () => {
    const asked = async (token: string) => {
      const response = await fetch(`${consoleUnderTest.url}/api/v1/set-aside`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return (await response.json()) as { count: number; items: Record<string, unknown>[] };
    };
    const operator = await asked(TOKENS.operator);
    expect(operator.count).toBe(1);
    expect(operator.items).toHaveLength(1);
    expect(operator.items[0]).toMatchObject({ eventId: 'rb-bib-1', sqlstate: '22003' });
    expect(operator.items[0]).not.toHaveProperty('record');
    expect(await asked(TOKENS.viewer)).toEqual({ count: 1, items: [] });
  });

  it('marks a recovered job_end in the list and on its journey', async () => {
    const page = await signIn(TOKENS.viewer);
    await page.goto(`${consoleUnderTest.url}/events?action=job_end`);
    const row = page.locator('tbody tr', { hasText: 'recovered-77001' });
    expect(await row.locator('.badge').textContent()).toBe('recovered');
    await row.locator('a').click();
    await page.waitForSelector('main .badge');
    expect(await page.locator('main .badge').textContent()).toBe('recovered');
    await checked(page, 'recovered-event');
  });
});
