import type { Page } from 'playwright-core';
import {
  launchTestBrowser,
  screenshot,
  screenshotWithoutViolations,
  signedInPage,
} from '../../helpers/console-browser';
import type { TestBrowser } from '../../helpers/console-browser';
import {
  HISTORY_CONSOLE_TOKENS as TOKENS,
  startConsoleWithHistory,
} from '../../helpers/console-with-history';
import type { ConsoleWithHistory } from '../../helpers/console-with-history';
import { fixtureEvent } from '../../helpers/history-events';

describe('the console’s history pages in a real browser', () => {
  let consoleUnderTest: ConsoleWithHistory;
  let browser: TestBrowser;
  const loan = fixtureEvent('loan-returned');
  const other = { ...fixtureEvent('item-updated'), institution: { value: 'INST_B' } };
  const jobEnd = fixtureEvent('job-end');
  const jobEndB = {
    ...fixtureEvent('job-end', { id: 'job-end-b' }),
    institution: { value: 'INST_B' },
  };
  const user = fixtureEvent('user-updated');
  /** A loan at the LAW library: library-main's `where:` does not take it. */
  const lawLoan = (() => {
    const loan = fixtureEvent('loan-created', { id: 'law-loan' });
    const itemLoan = loan.item_loan as Record<string, unknown>;
    return { ...loan, item_loan: { ...itemLoan, library: { value: 'LAW', desc: 'Law' } } };
  })();

  const signIn = (token: string): Promise<Page> =>
    signedInPage(browser, consoleUnderTest.url, token);
  const checked = screenshotWithoutViolations;

  beforeAll(async () => {
    // Slow replays (one delivery every 4 s) so that a replay's page shows it running first.
    consoleUnderTest = await startConsoleWithHistory({
      replayRatePerSecond: 0.25,
      moreRoutes: [
        { name: 'library-main', match: '{ where: { item_loan.library: [MAIN] } }' },
        { name: 'inst-b', match: '{ institution: [INST_B] }' },
      ],
    });
    await consoleUnderTest.record([loan, other, jobEnd, jobEndB, user, lawLoan], (recorder) =>
      recorder.attempt({
        event: loan,
        route: 'loans',
        attempt: 1,
        startedAt: new Date(),
        endedAt: new Date(),
        outcome: 'failed',
        status: 500,
        error: 'destination is down',
        durationMs: 12,
      }),
    );
    browser = await launchTestBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await consoleUnderTest?.close();
  });

  it('finds an event by barcode and by patron id, opens its journey and delivers it again', async () => {
    const page = await signIn(TOKENS.operator);
    await page.goto(`${consoleUnderTest.url}/events`);
    await page.fill('#f-barcode', '39000123456');
    await page.fill('#f-institution', '01SVC_INST');
    await page.click('button:has-text("Search")');
    expect(page.url()).toContain('barcode=39000123456');
    expect(await page.locator('tbody tr').count()).toBe(1);
    await checked(page, 'events');
    await page.goto(`${consoleUnderTest.url}/events?user=S1004217`);
    await page.click(`a:has-text("${loan.id}")`);
    await page.waitForSelector('text=destination is down');
    expect(await page.textContent('pre')).toContain('S1004217');
    await checked(page, 'event');
    // Only the routes that take the event (not inst-b), none chosen: the operator picks one.
    expect(await page.locator('#again-route option:not([disabled])').allTextContents()).toEqual([
      'loans',
      'library-main',
    ]);
    expect(await page.inputValue('#again-route')).toBe('');
    await page.selectOption('#again-route', 'loans');
    await page.click('button:has-text("Deliver again")');
    await page.waitForSelector('text=1 event queued on route loans');
  });

  it('offers no route to deliver an event again to when no route takes it', async () => {
    const page = await signIn(TOKENS.operator);
    await page.goto(`${consoleUnderTest.url}/events/01SVC_INST/${jobEnd.id}`);
    await page.waitForSelector('text=No route takes this event');
    expect(await page.locator('button:has-text("Deliver again")').count()).toBe(0);
    // A job_end at INST_B: the institution-held route takes it; loans (match: loan) does not.
    await page.goto(`${consoleUnderTest.url}/events/INST_B/${jobEndB.id}`);
    expect(await page.locator('#again-route option:not([disabled])').allTextContents()).toEqual([
      'inst-b',
    ]);
  });

  it('a replay by query sends only what the route takes; sending the rest needs a confirmation', async () => {
    const page = await signIn(TOKENS.operator);
    await page.goto(`${consoleUnderTest.url}/replays?route=library-main&institution=01SVC_INST`);
    await page.waitForSelector('text=Dry run: 4 events match your filter');
    expect(await page.textContent('#replay-summary')).toContain(
      '4 events match your filter; 1 of them matches route library-main; left out: 1 job_end, 1 loan, 1 user',
    );
    await page.waitForSelector('button:has-text("Replay 1 event to library-main")');
    await page.check('#r-ignore');
    await page.click('button:has-text("Count (dry run)")');
    await page.waitForSelector('text=3 of these events are not for route library-main');
    await checked(page, 'replay-ignore-route-match');
    // The confirmation is required: without it the browser does not send the form.
    await page.click('button:has-text("Replay 4 events to library-main")');
    expect(page.url()).toContain('/replays?');
    await page.check('#r-confirm');
    await page.click('button:has-text("Replay 4 events to library-main")');
    await page.waitForURL(/\/replays\/[\w-]+$/);
    await page.waitForSelector('text=done — 4 events queued on route library-main', {
      timeout: 60_000,
    });
    await page.waitForSelector("text=Sent with the route's match ignored");
  });

  it('replays by query after showing its count', async () => {
    const page = await signIn(TOKENS.operator);
    await page.goto(`${consoleUnderTest.url}/replays?route=loans&barcode=39000123456`);
    await page.waitForSelector('text=Dry run: 2 events match');
    await checked(page, 'replay');
    const progressCalls: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/progress')) progressCalls.push(request.url());
    });
    // The item event matches the filter but not the route (match: loan): left out.
    await page.click('button:has-text("Replay 1 event to loans")');
    await page.waitForURL(/\/replays\/[\w-]+$/);
    const progressUrl = page.url();
    const done = 'text=done — 1 event queued on route loans';
    // The replay may be done before its page first shows; while it runs, the page updates itself
    // (htmx, no reload) until it is done.
    const running = page.locator('text=running');
    await running.or(page.locator(done)).first().waitFor();
    if (await running.isVisible()) {
      await checked(page, 'replay-running');
      await page.waitForSelector(done, { timeout: 60_000 });
      expect(progressCalls.length).toBeGreaterThan(0);
    }
    expect(page.url()).toBe(progressUrl);
    expect(await page.textContent('#replay-progress')).toContain('2 of 2 matching events handled');
    await checked(page, 'replay-done');
    await page.goto(`${consoleUnderTest.url}/audit`);
    expect(await page.locator('tbody tr').count()).toBeGreaterThanOrEqual(2);
    await checked(page, 'audit');
    await page.goto(`${consoleUnderTest.url}/forget`);
    await checked(page, 'forget');
  });

  it('lays the search forms out in a grid: at 1,280 × 800 the first result is in view', async () => {
    const page = await signIn(TOKENS.operator);
    await page.setViewportSize({ width: 1280, height: 800 });
    /** The first result row's top and the form's height, in CSS pixels of the viewport. */
    const firstRowTop = async (): Promise<{ top: number; formHeight: number }> => {
      const row = await page.locator('tbody tr').first().boundingBox();
      const form = await page.locator('form.filters').boundingBox();
      if (row === null || form === null) throw new Error('no result row or form on the page');
      return { top: row.y, formHeight: form.height };
    };
    await page.goto(`${consoleUnderTest.url}/events`);
    expect(await page.locator('tbody tr').count()).toBeGreaterThan(0);
    const events = await firstRowTop();
    // Several fields to a row: 14 fields in a column took more than the whole viewport.
    expect(events.formHeight).toBeLessThan(300);
    expect(events.top).toBeLessThan(800 - 30);
    await screenshot(page, 'events-grid-1280', { viewport: true });

    await page.goto(`${consoleUnderTest.url}/replays?route=library-main&institution=01SVC_INST`);
    await page.waitForSelector('text=Dry run: 4 events match your filter');
    const replays = await firstRowTop();
    expect(replays.formHeight).toBeLessThan(350);
    expect(replays.top).toBeLessThan(800 - 30);
    await screenshotWithoutViolations(page, 'replays-grid-1280');
    await screenshot(page, 'replays-grid-1280-viewport', { viewport: true });
  });

  it('masks patron fields for a viewer and shows no action buttons', async () => {
    const page = await signIn(TOKENS.viewer);
    await page.goto(`${consoleUnderTest.url}/events/01SVC_INST/${loan.id}`);
    await page.waitForSelector('text=the rest masked');
    expect(await page.textContent('pre')).not.toContain('S1004217');
    expect(await page.locator('button:has-text("Deliver again")').count()).toBe(0);
    await checked(page, 'event-viewer');
  });

  it('keeps an institution-scoped operator out of another institution (page and API)', async () => {
    const page = await signIn(TOKENS.scoped);
    await page.goto(`${consoleUnderTest.url}/events`);
    expect(await page.locator('tbody tr').count()).toBe(2);
    expect(await page.textContent('tbody')).toContain(other.id);
    expect(await page.textContent('tbody')).toContain(jobEndB.id);
    const refused = await page.goto(`${consoleUnderTest.url}/events/01SVC_INST/${loan.id}`);
    expect(refused?.status()).toBe(403);
    const api = await fetch(`${consoleUnderTest.url}/api/v1/events?institution=01SVC_INST`, {
      headers: { authorization: `Bearer ${TOKENS.scoped}` },
    });
    expect(api.status).toBe(403);
  });
});
