import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HISTORY_CONSOLE_TOKENS } from '../../helpers/console-with-history';
import { PROXY_SECRET, startConsoleBehindProxy } from './support/console-behind-proxy';
import type { ConsoleWithHistory } from '../../helpers/console-with-history';
import { listenerUnderTest } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { ROOT, accepting, proxyRequest, runCommand } from '../../helpers/proxy-under-test';
import { freePort } from '../../../bench/ingress/free-port';

const SSO_IDENTITY = 'jane@library.example';

/**
 * deploy/proxy/Caddyfile as shipped, with only what a deployment sets changed: its upstream ports,
 * and its placeholder names (webhooks.example.org, console.example.org:8443) as http:// addresses
 * on free loopback ports — a placeholder name would make Caddy ask a CA for a certificate on the
 * internet. Before them a global block: no admin endpoint (port 2019 is shared by the machine) and
 * every port on the loopback only.
 */
async function writeCaddyfile(
  dir: string,
  ports: Record<'webhooks' | 'console' | 'listener' | 'consoleApp', number>,
): Promise<string> {
  const shipped = await readFile(join(ROOT, 'deploy/proxy/Caddyfile'), 'utf8');
  const site = shipped
    .replace('webhooks.example.org {', `http://127.0.0.1:${String(ports.webhooks)} {`)
    .replace('console.example.org:8443 {', `http://127.0.0.1:${String(ports.console)} {`)
    .replace(
      'reverse_proxy 127.0.0.1:3000 {',
      `reverse_proxy 127.0.0.1:${String(ports.listener)} {`,
    )
    .replace(
      'reverse_proxy 127.0.0.1:3001 {',
      `reverse_proxy 127.0.0.1:${String(ports.consoleApp)} {`,
    );
  const path = join(dir, 'Caddyfile');
  await writeFile(path, `{\n\tadmin off\n\tdefault_bind 127.0.0.1\n}\n\n${site}`);
  return path;
}

describe('deploy/proxy/Caddyfile: Caddy in front of the listener and the console', () => {
  let dir: string;
  let listener: ListenerUnderTest;
  let listenerServer: Server;
  let consoleApp: ConsoleWithHistory;
  let caddy: ChildProcess;
  let caddyOutput = '';
  let webhooksUrl: string;
  let consoleUrl: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svcws-caddy-'));
    listener = listenerUnderTest();
    listenerServer = createServer(listener.app).listen(0, '127.0.0.1');
    await once(listenerServer, 'listening');
    // As behind nginx: Caddy on the loopback is the proxy whose X-Forwarded-For is believed, and
    // (to show a client cannot use it) the single sign-on one.
    consoleApp = await startConsoleBehindProxy([{ identity: SSO_IDENTITY, role: 'operator' }]);
    const ports = {
      webhooks: await freePort(),
      console: await freePort(),
      listener: (listenerServer.address() as AddressInfo).port,
      consoleApp: Number(new URL(consoleApp.url).port),
    };
    const caddyfile = await writeCaddyfile(dir, ports);
    // Caddy keeps its state under HOME/XDG: the test's directory, not the machine's.
    const env = { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir };
    const valid = await runCommand('caddy', ['validate', '--config', caddyfile], env);
    expect(valid).toEqual({ code: 0, output: expect.stringContaining('Valid configuration') });
    caddy = spawn('caddy', ['run', '--config', caddyfile], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [caddy.stdout, caddy.stderr]) {
      stream?.on('data', (chunk: Buffer) => (caddyOutput += chunk.toString()));
    }
    await accepting(ports.webhooks);
    await accepting(ports.console);
    webhooksUrl = `http://127.0.0.1:${String(ports.webhooks)}`;
    consoleUrl = `http://127.0.0.1:${String(ports.console)}`;
  });

  afterAll(async () => {
    if (caddy.exitCode === null) {
      caddy.kill('SIGTERM');
      await once(caddy, 'exit');
    }
    listenerServer.close();
    await listener.close();
    await consoleApp.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('tries no certificate and reaches nothing outside (no ACME, no OCSP in its log)', () => {
    expect(caddyOutput).not.toMatch(/acme|obtain|certificate authority|ocsp/i);
  });

  it('passes the challenge on /webhooks to the listener; /metrics, /readyz and / are not found', async () => {
    const challenge = await proxyRequest(`${webhooksUrl}/webhooks?challenge=caddy-7`);
    expect([challenge.status, challenge.text]).toEqual([200, '{"challenge":"caddy-7"}']);
    for (const path of ['/metrics', '/readyz', '/']) {
      expect([path, (await proxyRequest(`${webhooksUrl}${path}`)).status]).toEqual([path, 404]);
    }
  });

  const api = (from: string, headers: Record<string, string>) =>
    proxyRequest(`${consoleUrl}/api/v1/routes`, { from, headers });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it('counts a client’s guesses under its own address whatever X-Forwarded-For it sends', async () => {
    const guesses: number[] = [];
    for (let guess = 0; guess < 11; guess += 1) {
      const spoofed = { 'x-forwarded-for': `198.51.100.${String(guess + 1)}` };
      guesses.push(
        (await api('127.0.0.2', { ...spoofed, ...bearer(`guess-${String(guess)}`) })).status,
      );
    }
    expect(guesses).toEqual([...Array<number>(10).fill(401), 429]);
    expect((await api('127.0.0.2', bearer(HISTORY_CONSOLE_TOKENS.operator))).status).toBe(429);
  });

  it('does not lock out another client: its right token and its sign-in go through', async () => {
    // 127.0.0.2 is locked out by the test before.
    expect((await api('127.0.0.3', bearer(HISTORY_CONSOLE_TOKENS.operator))).status).toBe(200);
    const signIn = await proxyRequest(`${consoleUrl}/sign-in`, {
      from: '127.0.0.3',
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${encodeURIComponent(HISTORY_CONSOLE_TOKENS.viewer)}`,
    });
    expect(signIn.status).toBe(303);
  });

  it('clears an X-Forwarded-User and X-Console-Proxy-Secret a client sends', async () => {
    const asJane = { 'x-forwarded-user': SSO_IDENTITY };
    const withSecret = { ...asJane, 'x-console-proxy-secret': PROXY_SECRET };
    const answers = [await api('127.0.0.5', asJane), await api('127.0.0.5', withSecret)];
    expect(answers.map((answer) => answer.status)).toEqual([401, 401]);
    // The same headers straight to the console are believed: Caddy is what dropped them.
    const direct = await fetch(`${consoleApp.url}/api/v1/routes`, { headers: withSecret });
    expect(direct.status).toBe(200);
  });
});
