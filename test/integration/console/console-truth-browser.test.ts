import { once } from 'node:events';
import { jobEndOutcome } from '../../helpers/job-end-outcome';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisClient } from '../../../src/redis/redis-client';
import type { Page } from 'playwright-core';
import { Registry } from 'prom-client';
import { ConsoleConfig, loadConfig } from '../../../src/config';
import { sha256Hex } from '../../../src/console';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { createConsoleProcess } from '../../../src/processes/console-process';
import type { ConsoleProcess } from '../../../src/processes/console-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openProducerConnection } from '../../../src/redis/open-producer-connection';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { captureLogger } from '../../helpers/capture-logger';
import {
  launchTestBrowser,
  screenshot,
  seriousA11yViolations,
} from '../../helpers/console-browser';
import type { TestBrowser } from '../../helpers/console-browser';
import {
  HISTORY_CONSOLE_TOKENS as TOKENS,
  startConsoleWithHistory,
} from '../../helpers/console-with-history';
import type { ConsoleWithHistory } from '../../helpers/console-with-history';
import { fixtureEvent } from '../../helpers/history-events';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import type { HistoryRecorder } from '../../../src/history/create-history-recorder';
import { recordRun } from '../../helpers/record-run';
import { recordTwoAttempts } from '../../helpers/record-two-attempts';
import { TEST_REDIS_URL } from '../../helpers/redis';
import { startStoppableProxy } from '../../helpers/stoppable-proxy';
import type { StoppableProxy } from '../../helpers/stoppable-proxy';
import { eventually, silentLogger } from '../../component/routes/support/route-events';
import { hostAndPort } from '../../helpers/test-services';

/** The window the console is read in: no page may be wider. */
const WINDOW = 1280;

describe('the console tells the truth, in a real browser', () => {
  let consoleUnderTest: ConsoleWithHistory;
  let browser: TestBrowser;
  let connection: RedisClient;
  let routing: Routing;
  const loan = fixtureEvent('loan-created');
  const jobEnd = fixtureEvent('job-end');

  const signIn = async (url: string, token: string): Promise<Page> => {
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    await page.goto(`${url}/sign-in`);
    await page.fill('input[name="token"]', token);
    await page.click('button[type="submit"]');
    await page.waitForURL(`${url}/`);
    return page;
  };
  /** Screenshot, axe, and no wider than the window. */
  const checked = async (page: Page, name: string): Promise<void> => {
    await screenshot(page, name);
    expect(await seriousA11yViolations(page)).toEqual([]);
    const width = await page.evaluate('document.documentElement.scrollWidth');
    expect([name, width]).toEqual([name, expect.any(Number)]);
    expect(width as number).toBeLessThanOrEqual(WINDOW);
  };

  beforeAll(async () => {
    consoleUnderTest = await startConsoleWithHistory();
    // The route `loans` posts to a port where nothing listens: a real worker's attempts are
    // refused (ECONNREFUSED), inline first, then queued.
    const closed = await closedPort();
    connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    routing = startRouting({
      connection,
      routes: parseRoutesFile(
        'routes:\n  - name: loans\n    match: { action: [loan] }\n' +
          `    to: { http: { url: "http://127.0.0.1:${String(closed)}/hook", timeoutMs: 2000 } }\n` +
          '    retry: { attempts: 20, backoffMs: 200 }\n    circuit: off\n',
        {},
      ).routes,
      redisUrl: TEST_REDIS_URL,
      queueName: consoleUnderTest.queueName,
      logger: silentLogger,
      registry: new Registry(),
      inline: { deadlineMs: 2000 },
    });
    // Every route worker runs and each route's pause is read: the first attempt is inline. (A
    // 300 ms clock wait here once lost that race beside a full test run: the attempt was queued.)
    await routing.whenReady();
    await routing.fanOut(loan, jobIdForEvent(loan.id));
    await consoleUnderTest.record([loan, jobEnd], (recorder) =>
      recordJourneys(recorder, loan, jobEnd),
    );
    browser = await launchTestBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await routing?.close();
    await closeRedis(connection);
    await consoleUnderTest?.close();
  });

  it('shows a route whose receiver refuses connections as failing, with its error, on the overview and the routes page', async () => {
    const page = await signIn(consoleUnderTest.url, TOKENS.operator);
    await eventually(async () => {
      await page.goto(`${consoleUnderTest.url}/`);
      return (await page.locator('.state-failing').count()) > 0;
    }, 'the overview to say failing');
    expect(await page.textContent('main')).toContain('ECONNREFUSED');
    await checked(page, 'overview-failing');
    await page.goto(`${consoleUnderTest.url}/routes`);
    expect(await page.textContent('main')).toContain('inline attempt');
    await checked(page, 'routes');
  });

  it('shows a LOAN journey and a job_end journey with its files as a list, within the window', async () => {
    const page = await signIn(consoleUnderTest.url, TOKENS.operator);
    await page.goto(`${consoleUnderTest.url}/events/01SVC_INST/${loan.id}`);
    const steps = await page.locator('main table tbody tr td:nth-child(2)').allInnerTexts();
    expect(steps.map((text) => text.replace(/\s+/g, ' ').trim())).toEqual([
      'received by the listener',
      `queued by the listener job ${loan.id}`,
      `taken by a worker, run 1 job ${loan.id}`,
      'route loans, attempt 1 inline (by the worker that took the event)',
      'finished',
      'route loans, attempt 2 queued (job route-job-1)',
    ]);
    const times = await page.locator('main table tbody tr td:nth-child(1)').allInnerTexts();
    expect(times).toEqual([...times].sort());
    await checked(page, 'journey-loan');
    await page.goto(
      `${consoleUnderTest.url}/events/${jobEnd.institution?.value ?? ''}/${jobEnd.id}`,
    );
    const jobEndSteps = await page.locator('main table tbody tr td:nth-child(2)').allInnerTexts();
    expect(jobEndSteps.map((text) => text.replace(/\s+/g, ' ').trim().split(' ')[0])).toEqual([
      'received',
      'queued',
      'taken',
      'taken',
      'job_end',
      'finished',
    ]);
    expect(await page.textContent('main table')).toContain(
      'no end recorded: still running, or its worker stopped',
    );
    expect(await page.locator('ul.files li').count()).toBe(2);
    expect(await page.innerText('ul.files')).toContain('1048576 bytes · 1000 records');
    await checked(page, 'journey-job-end');
    for (const path of ['/events', '/rejected', '/failed', '/audit', '/replays', '/forget']) {
      await page.goto(`${consoleUnderTest.url}${path}`);
      const width = await page.evaluate('document.documentElement.scrollWidth');
      expect([path, width]).toEqual([path, expect.any(Number)]);
      expect(width as number).toBeLessThanOrEqual(WINDOW);
    }
  });

  it('renders every page while Redis is down, the overview saying so', async () => {
    const down = await consoleBehindProxy();
    try {
      const page = await signIn(down.url, TOKENS.operator);
      await down.proxy.stop();
      await page.goto(`${down.url}/`);
      expect(await page.textContent('main')).toContain('The routes cannot be read now');
      await checked(page, 'overview-redis-down');
      for (const path of ['/routes', '/rejected', '/failed']) {
        const answer = await page.goto(`${down.url}${path}`);
        expect([path, answer?.status()]).toEqual([path, 200]);
        expect(await page.textContent('main')).toContain('Redis does not answer');
        expect(await seriousA11yViolations(page)).toEqual([]);
      }
    } finally {
      await down.close();
    }
  });
});

/** A loopback port nothing listens on (a server's, closed). */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A console without history whose Redis is reached through a proxy the test can stop. */
async function consoleBehindProxy(): Promise<{
  url: string;
  proxy: StoppableProxy;
  close: () => Promise<void>;
}> {
  const proxy = await startStoppableProxy(hostAndPort(TEST_REDIS_URL));
  const dir = await mkdtemp(join(tmpdir(), 'svc-console-down-'));
  await writeFile(
    join(dir, 'tokens.yaml'),
    `tokens:\n  - { name: ops, sha256: ${sha256Hex(TOKENS.operator)}, role: operator }\n`,
  );
  await writeFile(
    join(dir, 'routes.yaml'),
    'routes:\n  - name: loans\n    to: { file: { dir: /tmp } }\n',
  );
  const env = {
    QUEUE_NAME: `console-down-${String(process.pid)}`,
    CONSOLE_TOKENS_FILE: join(dir, 'tokens.yaml'),
    ROUTES_FILE: join(dir, 'routes.yaml'),
  };
  const connection = openProducerConnection(`redis://127.0.0.1:${String(proxy.port)}`);
  const consoleProcess: ConsoleProcess = createConsoleProcess({
    config: loadConfig(ConsoleConfig, env),
    logger: captureLogger().logger,
    connection,
    env,
  });
  if (connection.status !== 'ready') await once(connection, 'ready');
  const server: Server = createServer(consoleProcess.app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    proxy,
    close: async () => {
      server.close();
      await consoleProcess.close();
      await closeRedis(connection);
      await proxy.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The loan's and the job_end's journeys as the worker would record them: the loan queued and
 * taken, its inline attempt, its run ended, then its queued attempt; the job_end's first worker
 * died mid-run (no end recorded), the next one took it again, stored its files and finished.
 */
async function recordJourneys(
  recorder: HistoryRecorder,
  loan: CanonicalEvent,
  jobEnd: CanonicalEvent,
): Promise<void> {
  const attemptsFrom = await recordTwoAttempts(recorder, loan, {
    route: 'loans',
    jobId: 'route-job-1',
    second: 'retrying',
  });
  const received = Date.parse(loan.meta?.receivedAt ?? '');
  await recordRun(recorder, loan, {
    jobId: loan.id,
    queuedAt: new Date(received + 2),
    takenAt: new Date(received + 5),
    // Between the inline attempt's end (+13 ms) and the queued one's (+23 ms), however long the
    // recording itself took.
    endedAt: new Date(attemptsFrom + 15),
  });
  await recordRun(recorder, jobEnd, { jobId: jobEnd.id });
  // Run 2 is taken before its outcome is recorded (recordedAt: the moment of the call) and ends
  // after it, however long the recording itself takes.
  const run2TakenAt = new Date(Date.now() - 1);
  await recorder.outcome(
    jobEndOutcome(jobEnd, {
      outcome: 'completed',
      counters: { records: 1200 },
      files: [
        {
          path: '/var/lib/svcws/records/01SVC_INST/2026-11-26/export-of-a-rather-long-job-name-with-many-words-6123450000561-part-0001.mrc',
          bytes: 1_048_576,
          records: 1000,
        },
        {
          path: '/var/lib/svcws/records/01SVC_INST/2026-11-26/part-0002.mrc',
          bytes: 204_800,
          records: 200,
        },
      ],
    }),
  );
  await recordRun(recorder, jobEnd, {
    jobId: jobEnd.id,
    run: 2,
    takenAt: run2TakenAt,
    endedAt: new Date(Date.now() + 40),
  });
}
