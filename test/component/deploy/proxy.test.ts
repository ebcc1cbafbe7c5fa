import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { request } from 'node:https';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HISTORY_CONSOLE_TOKENS,
  startConsoleWithHistory,
} from '../../helpers/console-with-history';
import type { ConsoleWithHistory } from '../../helpers/console-with-history';
import { TEST_SECRET, listenerUnderTest } from '../../helpers/listener-under-test';
import { readAnswer } from '../../helpers/raw-post';
import type { RawAnswer } from '../../helpers/raw-post';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { freePort } from '../../../bench/ingress/free-port';

const ROOT = join(__dirname, '../../..');
const SSO_IDENTITY = 'jane@library.example';
const PROXY_SECRET = 'the-sso-proxy-secret-of-32-characters+';
const RECIPE = join(ROOT, 'deploy/proxy');

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(command, args, { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

async function accepting(port: number): Promise<void> {
  for (let tries = 0; tries < 100; tries += 1) {
    const socket = connect(port, '127.0.0.1');
    const ok = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(true));
      socket.once('error', () => resolve(false));
    });
    socket.destroy();
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing accepts on ${String(port)}`);
}

/** One HTTPS request that trusts the test's certificate only; `from`: its source address. */
function https(
  url: string,
  ca: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; from?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        ca,
        // Another loopback address is another client to nginx (its $remote_addr).
        ...(options.from === undefined ? {} : { localAddress: options.from, agent: false }),
      },
      (res) => {
        readAnswer(res).then(resolve, reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * deploy/proxy/nginx.conf as shipped, with only what a deployment sets changed: the ports, the
 * certificate's paths and the snippet's; wrapped in a main config that keeps nginx's files in `dir`.
 */
async function writeNginxConfig(
  dir: string,
  ports: Record<'webhooks' | 'console' | 'listener' | 'consoleApp', number>,
) {
  const site = (await readFile(join(RECIPE, 'nginx.conf'), 'utf8'))
    .replace('server 127.0.0.1:3000;', `server 127.0.0.1:${String(ports.listener)};`)
    .replace('server 127.0.0.1:3001;', `server 127.0.0.1:${String(ports.consoleApp)};`)
    .replace('listen 443 ssl;', `listen 127.0.0.1:${String(ports.webhooks)} ssl;`)
    .replace('listen 8443 ssl;', `listen 127.0.0.1:${String(ports.console)} ssl;`)
    .replaceAll('/etc/ssl/svcws/fullchain.pem', join(dir, 'cert.pem'))
    .replaceAll('/etc/ssl/svcws/privkey.pem', join(dir, 'key.pem'))
    .replaceAll('/etc/nginx/snippets/svcws-listener.conf', join(dir, 'svcws-listener.conf'));
  await writeFile(join(dir, 'site.conf'), site);
  await writeFile(
    join(dir, 'svcws-listener.conf'),
    await readFile(join(RECIPE, 'svcws-listener.conf'), 'utf8'),
  );
  await writeFile(
    join(dir, 'nginx.conf'),
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'error.log')} warn;`,
      'events { worker_connections 64; }',
      'http {',
      `  access_log ${join(dir, 'access.log')};`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (kind) => `  ${kind}_temp_path ${join(dir, kind)};`,
      ),
      `  include ${join(dir, 'site.conf')};`,
      '}',
    ].join('\n'),
  );
}

describe('deploy/proxy: nginx with TLS in front of the listener and the console', () => {
  let dir: string;
  let listener: ListenerUnderTest;
  let listenerServer: Server;
  let consoleApp: ConsoleWithHistory;
  let nginx: ChildProcess;
  let ca: string;
  let webhooksUrl: string;
  let consoleUrl: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svcws-proxy-'));
    // nginx's workers run as an unprivileged user when the test runs as root.
    await chmod(dir, 0o755);
    const cert = await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]);
    expect(cert.code).toBe(0);
    ca = await readFile(join(dir, 'cert.pem'), 'utf8');

    listener = listenerUnderTest();
    listenerServer = createServer(listener.app).listen(0, '127.0.0.1');
    await once(listenerServer, 'listening');
    await writeFile(
      join(dir, 'roles.yaml'),
      `identities:\n  - { identity: ${SSO_IDENTITY}, role: operator }\n`,
    );
    // As docs/console.md says behind this block: nginx on the loopback is the proxy whose
    // X-Forwarded-For is believed, and (to show a client cannot use it) the single sign-on one.
    consoleApp = await startConsoleWithHistory({
      env: {
        CONSOLE_TRUSTED_PROXIES: '127.0.0.1',
        CONSOLE_TRUSTED_PROXY: '127.0.0.1',
        CONSOLE_PROXY_SECRET: PROXY_SECRET,
        CONSOLE_ROLES_FILE: join(dir, 'roles.yaml'),
      },
    });
    const ports = {
      webhooks: await freePort(),
      console: await freePort(),
      listener: (listenerServer.address() as AddressInfo).port,
      consoleApp: Number(new URL(consoleApp.url).port),
    };
    await writeNginxConfig(dir, ports);
    const test = await run('nginx', ['-t', '-c', join(dir, 'nginx.conf'), '-p', dir]);
    expect(test).toEqual({ code: 0, output: expect.stringContaining('test is successful') });
    nginx = spawn('nginx', ['-c', join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' });
    await accepting(ports.webhooks);
    await accepting(ports.console);
    webhooksUrl = `https://localhost:${String(ports.webhooks)}`;
    consoleUrl = `https://localhost:${String(ports.console)}`;
  });

  afterAll(async () => {
    if (nginx.exitCode === null) {
      nginx.kill('SIGQUIT');
      await once(nginx, 'exit');
    }
    listenerServer.close();
    await listener.close();
    await consoleApp.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The operator CLI as a deployer runs it, trusting the local certificate as its CA. */
  function cli(args: string[]) {
    return run(process.execPath, ['--import', 'tsx', 'src/bin/cli.ts', ...args], {
      ...process.env,
      NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem'),
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
      expect([path, (await https(`${webhooksUrl}${path}`, ca)).status]).toEqual([path, 404]);
    }
  });

  it('signs in to the console through HTTPS and opens its overview with the session', async () => {
    const signIn = await https(`${consoleUrl}/sign-in`, ca, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${encodeURIComponent(HISTORY_CONSOLE_TOKENS.viewer)}`,
    });
    expect(signIn.status).toBe(303);
    const cookie = [signIn.headers['set-cookie'] ?? []].flat()[0]?.split(';')[0] ?? '';
    expect(cookie).not.toBe('');

    const overview = await https(`${consoleUrl}/`, ca, { headers: { cookie } });

    expect(overview.status).toBe(200);
    expect(overview.text).toContain('<html');
  });

  /** A console API call through nginx from one client (a loopback address of its own). */
  const api = (from: string, headers: Record<string, string>) =>
    https(`${consoleUrl}/api/v1/routes`, ca, { from, headers });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const signIn = (from: string, token: string) =>
    https(`${consoleUrl}/sign-in`, ca, {
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
      (await https(`${consoleUrl}/`, ca, { headers: { cookie } })).status;

    expect(await statusWith(operator)).toBe(200);
    expect(await statusWith(viewers[0] ?? '')).toBe(303);
    expect(await statusWith(viewers[11] ?? '')).toBe(200);
  });
});
