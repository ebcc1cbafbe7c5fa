import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { HISTORY_CONSOLE_TOKENS } from '../../helpers/console-with-history';
import { PROXY_SECRET, startConsoleBehindProxy } from './support/console-behind-proxy';
import type { ConsoleWithHistory } from '../../helpers/console-with-history';
import { TEST_SECRET, listenerUnderTest } from '../../helpers/listener-under-test';
import type { RawAnswer } from '../../helpers/raw-post';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { proxyRequest, runCommand } from '../../helpers/proxy-under-test';
import type { ProxyRequest } from '../../helpers/proxy-under-test';
import { startNginxSite } from './support/nginx-site';
import type { NginxSite } from './support/nginx-site';

const SSO_IDENTITY = 'jane@library.example';

describe('deploy/proxy: nginx with TLS in front of the listener and the console', () => {
  let listener: ListenerUnderTest;
  let listenerServer: Server;
  let consoleApp: ConsoleWithHistory;
  let site: NginxSite;
  let webhooksUrl: string;
  let consoleUrl: string;

  beforeAll(async () => {
    listener = listenerUnderTest();
    listenerServer = createServer(listener.app).listen(0, '127.0.0.1');
    await once(listenerServer, 'listening');
    // As docs/console.md says behind this block: nginx on the loopback is the proxy whose
    // X-Forwarded-For is believed, and (to show a client cannot use it) the single sign-on one.
    consoleApp = await startConsoleBehindProxy([{ identity: SSO_IDENTITY, role: 'operator' }]);
    site = await startNginxSite({
      listener: (listenerServer.address() as AddressInfo).port,
      consoleApp: Number(new URL(consoleApp.url).port),
    });
    ({ webhooksUrl, consoleUrl } = site);
  });

  afterAll(async () => {
    await site.stop();
    listenerServer.close();
    await listener.close();
    await consoleApp.close();
    await rm(site.dir, { recursive: true, force: true });
  });

  /** One HTTPS request through nginx, trusting the test's certificate only. */
  const https = (url: string, options: Omit<ProxyRequest, 'ca'> = {}) =>
    proxyRequest(url, { ...options, ca: site.ca });

  /** The operator CLI as a deployer runs it, trusting the local certificate as its CA. */
  function cli(args: string[]) {
    return runCommand(process.execPath, ['--import', 'tsx', 'src/bin/cli.ts', ...args], {
      ...process.env,
      NODE_EXTRA_CA_CERTS: join(site.dir, 'cert.pem'),
      // What is tested is the proxy; no worker runs here to follow a test event to.
      REDIS_URL: '',
    });
  }

  it('passes the challenge through HTTPS', async () => {
    const result = await cli(['challenge', '--url', `${webhooksUrl}/webhooks`]);

    expect(result.output).toContain('echoed the challenge');
    expect(result.code).toBe(0);
  });

  it('passes a signed test event through HTTPS to the queue (200)', async () => {
    const result = await cli([
      'send-test-event',
      '--url',
      `${webhooksUrl}/webhooks`,
      '--sample',
      'loan',
      '--secret',
      TEST_SECRET,
    ]);

    expect(result.output).toContain('← 200');
    expect(result.code).toBe(0);
    expect(await listener.events.queue.getJobCounts('waiting', 'prioritized')).toEqual(
      expect.objectContaining({ waiting: 1 }),
    );
  });

  it('exposes the webhook path only: /metrics, /readyz and / are not found', async () => {
    for (const path of ['/metrics', '/readyz', '/']) {
      expect([path, (await https(`${webhooksUrl}${path}`)).status]).toEqual([path, 404]);
    }
  });

  it('signs in to the console through HTTPS and opens its overview with the session', async () => {
    const signIn = await https(`${consoleUrl}/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${encodeURIComponent(HISTORY_CONSOLE_TOKENS.viewer)}`,
    });
    expect(signIn.status).toBe(303);
    const cookie = [signIn.headers['set-cookie'] ?? []].flat()[0]?.split(';')[0] ?? '';
    expect(cookie).not.toBe('');

    const overview = await https(`${consoleUrl}/`, { headers: { cookie } });

    expect(overview.status).toBe(200);
    expect(overview.text).toContain('<html');
  });

  /** A console API call through nginx from one client (a loopback address of its own). */
  const api = (from: string, headers: Record<string, string>) =>
    https(`${consoleUrl}/api/v1/routes`, { from, headers });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const signIn = (from: string, token: string) =>
    https(`${consoleUrl}/sign-in`, {
      from,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${encodeURIComponent(token)}`,
    });
  const cookieOf = (answer: RawAnswer): string =>
    [answer.headers['set-cookie'] ?? []].flat()[0]?.split(';')[0] ?? '';

  it('locks out the client that guessed, and not another client’s right token or sign-in', async () => {
    const guesses: number[] = [];
    for (let guess = 0; guess < 11; guess += 1) {
      guesses.push((await api('127.0.0.2', bearer(`guess-${String(guess)}`))).status);
    }
    expect(guesses).toEqual([...Array<number>(10).fill(401), 429]);
    expect((await api('127.0.0.2', bearer(HISTORY_CONSOLE_TOKENS.operator))).status).toBe(429);

    expect((await api('127.0.0.3', bearer(HISTORY_CONSOLE_TOKENS.operator))).status).toBe(200);
    expect((await signIn('127.0.0.3', HISTORY_CONSOLE_TOKENS.viewer)).status).toBe(303);
  });

  it('counts a client’s guesses under its own address whatever X-Forwarded-For it sends', async () => {
    const guesses: number[] = [];
    for (let guess = 0; guess < 11; guess += 1) {
      const spoofed = { 'x-forwarded-for': `198.51.100.${String(guess + 1)}` };
      guesses.push(
        (await api('127.0.0.4', { ...spoofed, ...bearer(`guess-${String(guess)}`) })).status,
      );
    }
    expect(guesses).toEqual([...Array<number>(10).fill(401), 429]);
  });

  it('ignores an X-Forwarded-User (and proxy secret) a client sends through the proxy', async () => {
    const asJane = { 'x-forwarded-user': SSO_IDENTITY };
    const withSecret = { ...asJane, 'x-console-proxy-secret': PROXY_SECRET };
    const answers = [await api('127.0.0.5', asJane), await api('127.0.0.5', withSecret)];
    expect(answers.map((answer) => answer.status)).toEqual([401, 401]);
  });

  it('ignores the identity header sent straight to the console on 127.0.0.1 without the proxy’s secret', async () => {
    const direct = (headers: Record<string, string>) =>
      fetch(`${consoleApp.url}/api/v1/routes`, { headers });
    const without = await direct({ 'x-forwarded-user': SSO_IDENTITY });
    const withIt = await direct({
      'x-forwarded-user': SSO_IDENTITY,
      'x-console-proxy-secret': PROXY_SECRET,
    });
    // The same request with the secret is the single sign-on proxy's: the header alone is not.
    expect([without.status, withIt.status]).toEqual([401, 200]);
  });

  it('ends only the oldest session of the principal signing in past its own cap', async () => {
    const operator = cookieOf(await signIn('127.0.0.6', HISTORY_CONSOLE_TOKENS.operator));
    const viewers: string[] = [];
    for (let one = 0; one < 12; one += 1) {
      // Sources of their own, so that the test shows the session cap and not a sign-in limit.
      viewers.push(
        cookieOf(await signIn(`127.0.1.${String(one + 1)}`, HISTORY_CONSOLE_TOKENS.viewer)),
      );
    }
    const statusWith = async (cookie: string) =>
      (await https(`${consoleUrl}/`, { headers: { cookie } })).status;

    expect(await statusWith(operator)).toBe(200);
    expect(await statusWith(viewers[0] ?? '')).toBe(303);
    expect(await statusWith(viewers[11] ?? '')).toBe(200);
  });
});
