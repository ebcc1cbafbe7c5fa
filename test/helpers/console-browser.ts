import { mkdtemp, mkdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';

/** Debian's Chromium (.ci/run installs it); never a downloaded browser. */
const CHROMIUM = '/usr/bin/chromium';
/** Screenshots of the console's pages (git-ignored). */
const SCREENSHOTS = join(__dirname, '..', '..', '.tmp', 'screenshots');

export interface TestBrowser {
  /** One profile: sign-ins clear its cookies first (signedInPage). */
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium headless with a fresh profile (its own --user-data-dir), none of its background traffic. */
export async function launchTestBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'svc-chromium-'));
  // Playwright takes the profile directory here rather than as --user-data-dir in args.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The whole page as `.tmp/screenshots/<name>.png`; `viewport: true` only what is in view. Gives
 * the file's path.
 */
export async function screenshot(
  page: Page,
  name: string,
  options: { viewport?: boolean } = {},
): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: options.viewport !== true });
  return path;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: unknown[];
}

/**
 * axe-core's serious and critical violations on the page. axe runs through the DevTools protocol
 * (page.evaluate), which the console's CSP — no script at all — does not govern.
 */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  const source = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const violations = await page.evaluate(
    'axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)',
  );
  return (violations as AxeViolation[])
    .filter((one) => one.impact === 'serious' || one.impact === 'critical')
    .map((one) => `${one.id} (${String(one.impact)}): ${one.help} ×${String(one.nodes.length)}`);
}

/** A new page of `browser` signed in to the console at `url` with `token` (cookies cleared first). */
export async function signedInPage(
  browser: TestBrowser,
  url: string,
  token: string,
): Promise<Page> {
  await browser.context.clearCookies();
  const page = await browser.context.newPage();
  await page.goto(`${url}/sign-in`);
  await page.fill('input[name="token"]', token);
  await page.click('button[type="submit"]');
  await page.waitForURL(`${url}/`);
  return page;
}

/** The page's screenshot taken (its path given), and no serious or critical axe violation on it. */
export async function screenshotWithoutViolations(page: Page, name: string): Promise<string> {
  const path = await screenshot(page, name);
  expect(await seriousA11yViolations(page)).toEqual([]);
  return path;
}
