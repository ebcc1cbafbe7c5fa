import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsoleConfig, loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { createConsoleProcess } from '../../../src/processes/console-process';
import type { ConsoleProcess } from '../../../src/processes/console-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openProducerConnection } from '../../../src/redis/open-producer-connection';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { launchTestBrowser } from '../../helpers/console-browser';
import type { TestBrowser } from '../../helpers/console-browser';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

const IDENTITY = 'jane@library.example';
const PROXY_SECRET = 'the-sso-proxy-secret-of-32-characters+';

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** Another site (`localhost` is not `127.0.0.1`'s site) whose page posts a form to the console. */
function attackerSite(target: string) {
  return createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(
      `<!doctype html><title>prize</title>
       <form method="post" action="${target}"><input name="x" value="1" /><button>claim</button></form>`,
    );
  });
}

/**
 * A browser behind a single sign-on proxy that authenticates with HTTP Basic and passes the
 * identity on: every request it sends, a cross-site form post too, carries both headers (set here
 * for the whole browser, as the proxy's login makes the browser do).
 */
describe('a cross-site form post in Chromium', () => {
  let dir: string;
  let queueName: string;
  let connection: ReturnType<typeof openProducerConnection>;
  let consoleProcess: ConsoleProcess;
  let consoleServer: Server;
  let consoleUrl: string;
  let browser: TestBrowser;
  const attackers: Server[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-console-csrf-browser-'));
    queueName = uniqueQueueName('console-csrf-browser');
    await writeFile(
      join(dir, 'roles.yaml'),
      `identities:\n  - { identity: ${IDENTITY}, role: operator }\n`,
    );
    await writeFile(
      join(dir, 'routes.yaml'),
      'routes:\n  - name: loans\n    to: { http: { url: "https://example.org/hook" } }\n',
    );
    const env = {
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: queueName,
      ROUTES_FILE: join(dir, 'routes.yaml'),
      CONSOLE_ROLES_FILE: join(dir, 'roles.yaml'),
      CONSOLE_TRUSTED_PROXY: '127.0.0.1',
      CONSOLE_PROXY_SECRET: PROXY_SECRET,
    };
    connection = openProducerConnection(TEST_REDIS_URL, { commandTimeoutMs: 5000 });
    consoleProcess = createConsoleProcess({
      config: loadConfig(ConsoleConfig, env),
      logger: createLogger({ level: 'silent', name: 'test' }),
      connection,
      env,
    });
    consoleServer = createServer(consoleProcess.app);
    consoleUrl = `http://127.0.0.1:${String(await listen(consoleServer))}`;
    browser = await launchTestBrowser();
    await browser.context.setExtraHTTPHeaders({
      'X-Forwarded-User': IDENTITY,
      'X-Console-Proxy-Secret': PROXY_SECRET,
      Authorization: `Basic ${Buffer.from(`${IDENTITY}:proxy-password`).toString('base64')}`,
    });
  });
  afterAll(async () => {
    await browser?.close();
    for (const one of attackers) one.close();
    consoleServer?.close();
    await consoleProcess?.close();
    await closeRedis(connection);
    await obliterateQueue(routeQueueName(queueName, 'loans'));
    await obliterateQueue(queueName);
    await rm(dir, { recursive: true, force: true });
  });

  const routeState = async (): Promise<string> => {
    const page = await browser.context.newPage();
    await page.goto(`${consoleUrl}/routes`);
    const text = (await page.textContent('main')) ?? '';
    await page.close();
    return /\bpaused\b/.test(text) ? 'paused' : 'running';
  };

  it.each(['/routes/loans/pause', '/api/v1/routes/loans/pause'])(
    'is refused with 403 at %s, the route left running',
    async (path) => {
      const attacker = attackerSite(`${consoleUrl}${path}`);
      attackers.push(attacker);
      const port = await listen(attacker);
      const page = await browser.context.newPage();
      await page.goto(`http://localhost:${String(port)}/`);
      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.url() === `${consoleUrl}${path}`),
        page.click('button'),
      ]);
      expect(answer.status()).toBe(403);
      await page.close();
      expect(await routeState()).toBe('running');
    },
  );

  it('lets the console’s own form pause the route (its CSRF token is on the page)', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${consoleUrl}/routes`);
    await page.click('button:has-text("Pause loans")');
    await page.waitForURL(/\/routes\?notice=/);
    expect(await page.textContent('[role="status"], .notice')).toMatch(/route loans paused/);
    await page.close();
    expect(await routeState()).toBe('paused');
  });
});
