import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConsoleWithHistory } from '../../helpers/console-with-history';
import { proxyRequest } from '../../helpers/proxy-under-test';
import { PROXY_SECRET, startConsoleBehindProxy } from './support/console-behind-proxy';
import { startNginxSite } from './support/nginx-site';
import type { NginxSite } from './support/nginx-site';

const JANE = 'jane@library.example';
const DESK = 'desk@inst-a.example';

/**
 * The single sign-on edit docs/console.md describes, made to the shipped file as a deployer makes
 * it: the commented oauth2-proxy locations and the commented identity and secret lines in, the two
 * lines that drop them out; oauth2-proxy's address and the secret filled in.
 */
function singleSignOn(oauth2ProxyPort: number) {
  return (site: string): string => {
    const lines = site.split('\n');
    const start = lines.findIndex((line) => line.includes('# location = /oauth2/auth {'));
    const identity = lines.findIndex((line) => line.includes('#   auth_request /oauth2/auth;'));
    if (start < 0 || identity < 0) throw new Error('the single sign-on lines are not in the file');
    const uncomment = (from: number, prefix: string) => {
      for (let at = from; lines[at]?.startsWith(prefix) === true; at += 1) {
        lines[at] = (lines[at] ?? '').replace('# ', '').replace(/^(\s*)\s\s(\S)/, '$1$2');
      }
    };
    uncomment(start, '    # ');
    uncomment(identity, '        #   ');
    return lines
      .filter(
        (line) => !/proxy_set_header (X-Forwarded-User|X-Console-Proxy-Secret) "";/.test(line),
      )
      .join('\n')
      .replaceAll('127.0.0.1:4180', `127.0.0.1:${String(oauth2ProxyPort)}`)
      .replace('"<CONSOLE_PROXY_SECRET>"', `"${PROXY_SECRET}"`);
  };
}

/**
 * oauth2-proxy's part, as nginx asks it: `/oauth2/auth` answers 202 with the signed-in person's
 * e-mail for a session cookie it knows, 401 otherwise.
 */
async function startOauth2Stand_in(): Promise<{ server: Server; asked: string[] }> {
  const people: Record<string, string> = { 'session-jane': JANE, 'session-desk': DESK };
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? '');
    const session = /_oauth2_proxy=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1] ?? '';
    const person = people[session];
    if (req.url !== '/oauth2/auth' || person === undefined) {
      res.writeHead(401).end();
      return;
    }
    res.writeHead(202, { 'X-Auth-Request-Email': person }).end();
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, asked };
}

describe('deploy/proxy/nginx.conf with single sign-on: the identity is nginx’s, never a client’s', () => {
  let consoleApp: ConsoleWithHistory;
  let oauth2: { server: Server; asked: string[] };
  let site: NginxSite;

  beforeAll(async () => {
    // As docs/console.md says for single sign-on through nginx on the same host.
    consoleApp = await startConsoleBehindProxy([
      { identity: JANE, role: 'operator' },
      { identity: DESK, role: 'viewer', institution: 'INST_A' },
    ]);
    oauth2 = await startOauth2Stand_in();
    site = await startNginxSite(
      // No listener is asked for here: the webhooks' upstream is never reached.
      { listener: 9, consoleApp: Number(new URL(consoleApp.url).port) },
      singleSignOn((oauth2.server.address() as AddressInfo).port),
    );
  });

  afterAll(async () => {
    await site.stop();
    oauth2.server.close();
    await consoleApp.close();
    await rm(site.dir, { recursive: true, force: true });
  });

  const page = (headers: Record<string, string>) =>
    proxyRequest(`${site.consoleUrl}/`, { ca: site.ca, headers });

  it('signs in the person oauth2-proxy vouches for, as their role', async () => {
    const answer = await page({ cookie: '_oauth2_proxy=session-jane' });

    expect(answer.status).toBe(200);
    expect(answer.text).toContain(JANE);
    expect(oauth2.asked).toContain('/oauth2/auth');
    const api = await proxyRequest(`${site.consoleUrl}/api/v1/routes`, {
      ca: site.ca,
      headers: { cookie: '_oauth2_proxy=session-jane' },
    });
    expect(api.status).toBe(200);
  });

  it('takes nginx’s identity over the one a signed-in client sends', async () => {
    const answer = await page({
      cookie: '_oauth2_proxy=session-desk',
      'x-forwarded-user': JANE,
      'x-console-proxy-secret': PROXY_SECRET,
    });

    expect(answer.status).toBe(200);
    expect(answer.text).toContain(DESK);
    expect(answer.text).not.toContain(JANE);
  });

  it('refuses a client without a session whatever identity and secret it sends (401)', async () => {
    const answer = await page({ 'x-forwarded-user': JANE, 'x-console-proxy-secret': PROXY_SECRET });

    expect(answer.status).toBe(401);
    expect(answer.text).not.toContain(JANE);
  });
});
