import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localCertificate } from '../../../helpers/local-certificate';
import { ROOT, accepting, runCommand } from '../../../helpers/proxy-under-test';
import { freePort } from '../../../../bench/ingress/free-port';

const RECIPE = join(ROOT, 'deploy/proxy');

export interface NginxSite {
  readonly dir: string;
  /** The local certificate nginx serves (trusted by the test's requests). */
  readonly ca: string;
  readonly webhooksUrl: string;
  readonly consoleUrl: string;
  stop(): Promise<void>;
}

/**
 * deploy/proxy/nginx.conf as shipped, with only what a deployment sets changed: the ports, the
 * certificate's paths and the snippet's (and `edit`: a documented change, single sign-on's);
 * wrapped in a main config that keeps nginx's files in a directory of its own, run on free ports.
 */
export async function startNginxSite(
  upstreams: { readonly listener: number; readonly consoleApp: number },
  edit: (site: string) => string = (site) => site,
): Promise<NginxSite> {
  const dir = await mkdtemp(join(tmpdir(), 'svcws-proxy-'));
  // nginx's workers run as an unprivileged user when the test runs as root.
  await chmod(dir, 0o755);
  const { pem: ca } = await localCertificate(dir);
  const ports = { webhooks: await freePort(), console: await freePort(), ...upstreams };
  await writeNginxConfig(dir, ports, edit);
  const test = await runCommand('nginx', ['-t', '-c', join(dir, 'nginx.conf'), '-p', dir]);
  if (test.code !== 0) throw new Error(`nginx -t: ${test.output}`);
  const nginx = spawn('nginx', ['-c', join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' });
  await accepting(ports.webhooks);
  await accepting(ports.console);
  return {
    dir,
    ca,
    webhooksUrl: `https://localhost:${String(ports.webhooks)}`,
    consoleUrl: `https://localhost:${String(ports.console)}`,
    stop: () => stopNginx(nginx),
  };
}

async function stopNginx(nginx: ChildProcess): Promise<void> {
  if (nginx.exitCode !== null) return;
  nginx.kill('SIGQUIT');
  await once(nginx, 'exit');
}

async function writeNginxConfig(
  dir: string,
  ports: Record<'webhooks' | 'console' | 'listener' | 'consoleApp', number>,
  edit: (site: string) => string,
) {
  const site = edit(await readFile(join(RECIPE, 'nginx.conf'), 'utf8'))
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
