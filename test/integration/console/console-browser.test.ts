import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { sendTestEvent } from '../../../src/cli/send-test-event';
import { ConsoleConfig, loadConfig, WorkerConfig } from '../../../src/config';
import { sha256Hex } from '../../../src/console';
import { createLogger } from '../../../src/logger';
import { createConsoleProcess } from '../../../src/processes/console-process';
import type { ConsoleProcess } from '../../../src/processes/console-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openProducerConnection } from '../../../src/redis/open-producer-connection';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { createWorkerProcess } from '../../../src/processes/worker-process';
import type { WorkerProcess } from '../../../src/processes/worker-process';
import {
  launchTestBrowser,
  screenshot,
  seriousA11yViolations,
} from '../../helpers/console-browser';
import type { TestBrowser } from '../../helpers/console-browser';
import { TEST_SECRET, listenerUnderTest } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { loanEventJson } from '../../helpers/loan-event';
import { TEST_REDIS_URL, obliterateQueue } from '../../helpers/redis';

const TOKENS = {
  operator: 'operator-token-for-the-browser-test',
  viewer: 'viewer-token-for-the-browser-test',
  scoped: 'inst-a-operator-token-for-the-test',
};

/** The destination: answers `status` to every delivery and keeps the event ids it accepted. */
function destination() {
  const state = { status: 200, received: [] as string[] };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (state.status < 300) state.received.push((JSON.parse(body) as { id: string }).id);
      res.writeHead(state.status).end(state.status < 300 ? 'ok' : 'destination is down');
    });
  });
  return { state, server };
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the operator console in a real browser', () => {
  let dir: string;
  let listener: ListenerUnderTest;
  let listenerServer: Server;
  let listenerUrl: string;
  let dest: ReturnType<typeof destination>;
  let worker: WorkerProcess;
  let workerConnection: ReturnType<typeof openWorkerConnection>;
  let consoleConnection: ReturnType<typeof openProducerConnection>;
  let consoleProcess: ConsoleProcess;
  let consoleServer: Server;
  let consoleUrl: string;
  let browser: TestBrowser;
  const silent = createLogger({ level: 'silent', name: 'test' });

  const send = async (id: string, institution?: string) => {
    const answer = await sendTestEvent({
      url: `${listenerUrl}/webhooks`,
      secret: TEST_SECRET,
      body: Buffer.from(loanEventJson(id, institution)),
      contentType: 'application/json',
      timeoutMs: 5000,
    });
    expect(answer.status).toBe(200);
  };
  const routeQueueCounts = async () => {
    const response = await fetch(`${consoleUrl}/api/v1/routes`, {
      headers: { authorization: `Bearer ${TOKENS.operator}` },
    });
    const body = (await response.json()) as { items: { counts: Record<string, number> }[] };
    return body.items[0]?.counts ?? {};
  };
  const signIn = async (token: string): Promise<Page> => {
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    await page.goto(`${consoleUrl}/sign-in`);
    await page.fill('input[name="token"]', token);
    await page.click('button[type="submit"]');
    await page.waitForURL(`${consoleUrl}/`);
    return page;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-console-'));
    listener = listenerUnderTest();
    listenerServer = createServer(listener.app);
    listenerUrl = await listen(listenerServer);
    dest = destination();
    const destUrl = await listen(dest.server);
    await writeFile(
      join(dir, 'routes.yaml'),
      `routes:\n  - name: loans\n    match: { action: [loan] }\n` +
        `    to: { http: { url: "${destUrl}/hook", timeoutMs: 2000 } }\n` +
        `    retry: { attempts: 1, backoffMs: 1 }\n`,
    );
    await writeFile(
      join(dir, 'tokens.yaml'),
      'tokens:\n' +
        `  - { name: ops, sha256: ${sha256Hex(TOKENS.operator)}, role: operator }\n` +
        `  - { name: reader, sha256: ${sha256Hex(TOKENS.viewer)}, role: viewer }\n` +
        `  - { name: inst-a-ops, sha256: ${sha256Hex(TOKENS.scoped)}, role: operator, institution: INST_A }\n`,
    );
    const env = {
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: listener.queueName,
      ROUTES_FILE: join(dir, 'routes.yaml'),
      CONSOLE_TOKENS_FILE: join(dir, 'tokens.yaml'),
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_API_KEY: 'unused',
      RECORDS_DIR: join(dir, 'records'),
      WORKER_METRICS_PORT: '0',
      // Every delivery a route job, so the console has queued, paused and failed jobs to show at
      // once (inline first attempts: test/component/routes/inline-delivery.test.ts).
      ROUTE_INLINE: 'off',
    };
    workerConnection = openWorkerConnection(TEST_REDIS_URL, silent);
    worker = createWorkerProcess({
      config: loadConfig(WorkerConfig, env),
      logger: silent,
      connection: workerConnection,
      env,
    });
    consoleConnection = openProducerConnection(TEST_REDIS_URL, { commandTimeoutMs: 5000 });
    consoleProcess = createConsoleProcess({
      config: loadConfig(ConsoleConfig, env),
      logger: silent,
      connection: consoleConnection,
      env,
    });
    consoleServer = createServer(consoleProcess.app);
    consoleUrl = await listen(consoleServer);
    browser = await launchTestBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    consoleServer?.close();
    await consoleProcess?.close();
    await closeRedis(consoleConnection);
    await worker?.close();
    await closeRedis(workerConnection);
    listenerServer?.close();
    dest?.server.close();
    await listener?.close();
    await obliterateQueue(routeQueueName(listener.queueName, 'loans'));
    await rm(dir, { recursive: true, force: true });
  });

  it('signs in, pauses a route so deliveries wait, and resumes it so they drain', async () => {
    const page = await signIn(TOKENS.operator);
    expect(await page.textContent('h1')).toBe('Overview');
    await page.goto(`${consoleUrl}/routes`);
    await page.click('button:has-text("Pause loans")');
    await page.waitForSelector('text=route loans paused');

    await send('pause-1', 'INST_A');
    await until(
      'a delivery waiting on the paused route',
      async () => (await routeQueueCounts()).waiting === 1,
    );
    expect(dest.state.received).not.toContain('pause-1');

    await page.click('button:has-text("Resume loans")');
    await page.waitForSelector('text=route loans resumed');
    await until('the waiting delivery delivered', () => dest.state.received.includes('pause-1'));
    await page.goto(`${consoleUrl}/`);
    await screenshot(page, 'overview');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('shows a failing destination’s reason and replays the failed delivery once it is back', async () => {
    dest.state.status = 500;
    await send('fail-a', 'INST_A');
    await send('fail-b', 'INST_B');
    await until('two failed deliveries', async () => (await routeQueueCounts()).failed === 2);
    const page = await signIn(TOKENS.operator);
    await page.goto(`${consoleUrl}/routes`);
    expect(await page.textContent('#route-loans')).toContain('500');
    await screenshot(page, 'routes');
    expect(await seriousA11yViolations(page)).toEqual([]);

    dest.state.status = 200;
    await page.click('button:has-text("Replay failed deliveries of loans")');
    await page.waitForSelector('text=2 failed deliveries replayed on route loans');
    await until('both replayed deliveries delivered', () =>
      ['fail-a', 'fail-b'].every((id) => dest.state.received.includes(id)),
    );
  });

  it('shows a viewer no action buttons, and refuses its API actions with 403', async () => {
    const page = await signIn(TOKENS.viewer);
    await page.goto(`${consoleUrl}/routes`);
    expect(await page.locator('#route-loans').count()).toBe(1);
    expect(await page.locator('main form').count()).toBe(0);
    const answer = await fetch(`${consoleUrl}/api/v1/routes/loans/pause`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.viewer}` },
    });
    expect(answer.status).toBe(403);
    expect(await answer.json()).toEqual({
      error: 'forbidden_role',
      message: 'pausing a route needs the operator role',
    });
  });

  it('keeps an institution-scoped operator to its own institution, on the pages and in the API', async () => {
    dest.state.status = 500;
    await send('scope-a', 'INST_A');
    await send('scope-b', 'INST_B');
    await until('two failed deliveries', async () => (await routeQueueCounts()).failed === 2);
    dest.state.status = 200;

    const page = await signIn(TOKENS.scoped);
    await page.goto(`${consoleUrl}/routes`);
    const section = (await page.textContent('#route-loans')) ?? '';
    expect(section).toContain('scope-a');
    expect(section).not.toContain('scope-b');

    const bearer = { authorization: `Bearer ${TOKENS.scoped}` };
    const other = await fetch(`${consoleUrl}/api/v1/routes/loans/replay`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ jobId: 'scope-b' }),
    });
    expect(other.status).toBe(403);
    const pause = await fetch(`${consoleUrl}/api/v1/routes/loans/pause`, {
      method: 'POST',
      headers: bearer,
    });
    expect(pause.status).toBe(403);
    const listed = (await (
      await fetch(`${consoleUrl}/api/v1/routes`, { headers: bearer })
    ).json()) as {
      items: { recentFailures: { eventId: string }[] }[];
    };
    // Its own failed attempts only (an earlier test's fail-a is INST_A's too).
    const failures = listed.items[0]?.recentFailures.map((one) => one.eventId) ?? [];
    expect(failures).toContain('scope-a');
    expect(failures).not.toContain('scope-b');
    const own = await fetch(`${consoleUrl}/api/v1/routes/loans/replay`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ jobId: 'scope-a' }),
    });
    expect(await own.json()).toMatchObject({ done: true, count: 1 });
    await until('scope-a delivered', () => dest.state.received.includes('scope-a'));
    expect(dest.state.received).not.toContain('scope-b');
  });

  it('refuses a forged cross-site form post and a session post without the CSRF token', async () => {
    const page = await signIn(TOKENS.operator);
    await page.setContent(
      `<form method="post" action="${consoleUrl}/routes/loans/pause"><button>win a prize</button></form>`,
    );
    const [response] = await Promise.all([page.waitForNavigation(), page.click('button')]);
    expect([401, 403]).toContain(response?.status());
    const cookies = await browser.context.cookies(consoleUrl);
    const cookie = cookies.map((one) => `${one.name}=${one.value}`).join('; ');
    const noToken = await fetch(`${consoleUrl}/routes/loans/pause`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: '_csrf=forged',
      redirect: 'manual',
    });
    expect(noToken.status).toBe(403);
    expect((await routeQueueCounts()).waiting).toBe(0);
    const stateNow = async (): Promise<string | undefined> =>
      (
        (await (
          await fetch(`${consoleUrl}/api/v1/routes`, {
            headers: { authorization: `Bearer ${TOKENS.operator}` },
          })
        ).json()) as { items: { state: string }[] }
      ).items[0]?.state;
    // Not paused: running once the last test's delivery is in the figures (flushed every 250 ms).
    await until('the route running', async () => (await stateNow()) === 'running');
    expect(await stateNow()).toBe('running');
  });

  it('lists a rejected delivery, shows its bytes as text, and the other pages pass the accessibility check', async () => {
    const answer = await sendTestEvent({
      url: `${listenerUrl}/webhooks`,
      secret: TEST_SECRET,
      body: Buffer.from('{"not":"an event <b>"}'),
      contentType: 'application/json',
      timeoutMs: 5000,
    });
    expect(answer.status).toBe(400);
    const page = await signIn(TOKENS.operator);
    await page.goto(`${consoleUrl}/rejected`);
    await screenshot(page, 'rejected');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.click('main table a');
    expect(await page.textContent('pre')).toBe('{"not":"an event <b>"}');
    await screenshot(page, 'rejected-entry');
    for (const [path, name] of [
      ['/failed', 'failed'],
      ['/events', 'events'],
      ['/audit', 'audit'],
      ['/sign-in', 'sign-in'],
    ] as const) {
      await page.goto(`${consoleUrl}${path}`);
      await screenshot(page, name);
      expect(await seriousA11yViolations(page)).toEqual([]);
    }
    expect(await page.content()).not.toContain(TOKENS.operator);
  });
});
