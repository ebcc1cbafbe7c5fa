import { appendFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  launchTestBrowser,
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
import { startRoutesWorker, workersRunning } from '../../helpers/routes-worker';
import type { RoutesWorker } from '../../helpers/routes-worker';

jest.setTimeout(120_000);

/** Added to the routes file while the console runs; a restarted worker picks it up. */
const NEW_ROUTE = 'requests';
const NEW_MARK = "(new: run by workers, not in the console's file)";

describe('the routes the workers run, and the replay dialog, in a real browser', () => {
  let running: ConsoleWithHistory;
  let browser: TestBrowser;
  let dir: string;
  let worker: RoutesWorker | undefined;
  const since = new Date(Date.now() - 60_000).toISOString();

  const signIn = (): Promise<Page> => signedInPage(browser, running.url, TOKENS.operator);
  /** The screenshot taken (no serious axe violation), and its file written. */
  const shot = async (page: Page, name: string): Promise<void> => {
    const path = await screenshotWithoutViolations(page, name);
    expect((await stat(path)).size).toBeGreaterThan(0);
  };
  const startWorker = (): RoutesWorker =>
    startRoutesWorker(
      { QUEUE_NAME: running.queueName, ROUTES_FILE: running.cliEnv().ROUTES_FILE ?? '' },
      dir,
    );

  beforeAll(async () => {
    running = await startConsoleWithHistory();
    dir = await mkdtemp(join(tmpdir(), 'svc-routes-run-browser-'));
    await running.record([
      fixtureEvent('loan-returned', { id: 'rrb-loan' }),
      fixtureEvent('user-updated', { id: 'rrb-user' }),
    ]);
    worker = startWorker();
    await workersRunning(running.redis, running.queueName, ['loans']);
    browser = await launchTestBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await running?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('counts a replay in its dialog (dry run): both numbers, the action left out, the button', async () => {
    const page = await signIn();
    await page.goto(`${running.url}/replays?route=loans&since=${encodeURIComponent(since)}`);
    await page.waitForSelector('text=Dry run: 2 events match your filter');
    expect(await page.textContent('#replay-summary')).toContain(
      '2 events match your filter; 1 of them matches route loans; left out: 1 user',
    );
    await page.waitForSelector('button:has-text("Replay 1 event to loans")');
    await shot(page, 'replay-dry-run');
  });

  it('shows a route added to the routes file, once a restarted worker runs it, marked as new; a replay to it is refused', async () => {
    const page = await signIn();
    await page.goto(`${running.url}/routes`);
    await page.waitForSelector('h2#h-loans');
    expect(await page.locator(`h2#h-${NEW_ROUTE}`).count()).toBe(0);

    // The file gains a route while the console runs; the worker restarts on it.
    await appendFile(
      running.cliEnv().ROUTES_FILE ?? '',
      `  - name: ${NEW_ROUTE}\n    match: { action: [request] }\n` +
        '    to: { http: { url: "http://127.0.0.1:9/requests" } }\n',
    );
    await worker?.close();
    worker = startWorker();
    await workersRunning(running.redis, running.queueName, ['loans', NEW_ROUTE]);

    await page.reload();
    const heading = page.locator(`h2#h-${NEW_ROUTE}`);
    await heading.waitFor();
    expect((await heading.textContent())?.replace(/\s+/g, ' ')).toContain(NEW_MARK);
    expect(await page.textContent(`#route-${NEW_ROUTE}`)).toContain(
      `This console cannot replay to ${NEW_ROUTE} or pause it`,
    );
    expect(await page.textContent('#h-loans')).not.toContain('new:');
    expect(await page.textContent('main')).toContain(
      'The console read another version of the routes file at its start',
    );
    await shot(page, 'routes-run-new-route');

    // A replay to it is refused on the page, saying to restart the console.
    const refused = await page.goto(
      `${running.url}/replays?route=${NEW_ROUTE}&since=${encodeURIComponent(since)}`,
    );
    expect(refused?.status()).toBe(409);
    expect(await page.textContent('[role="alert"]')).toContain(
      `route ${NEW_ROUTE} is run by the workers but was added to the routes file after the console started: restart the console`,
    );
    await shot(page, 'replay-route-not-in-console');
  });
});
