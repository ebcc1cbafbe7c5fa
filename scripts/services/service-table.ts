import type { PrivateServerKind, ToolKind } from './server-kind';
import { mosquittoServer } from './servers/mosquitto';
import { natsServer } from './servers/nats';
import { postgresServer } from './servers/postgres';
import { rabbitmqServer } from './servers/rabbitmq';
import { redisServer } from './servers/redis';

/**
 * The one table of what the tests and the demo need. `npm test` starts each server privately
 * (test/services/global-setup.ts), the demo starts Redis, `.ci/run` installs the lot, and the
 * README's list is checked against this table (test/unit/services/service-table.test.ts).
 */
export const PRIVATE_SERVERS: readonly PrivateServerKind[] = [
  redisServer,
  postgresServer,
  rabbitmqServer,
  natsServer,
  mosquittoServer,
];

const chromiumDirs = (): readonly string[] => ['/usr/bin'];

export const TOOLS: readonly ToolKind[] = [
  {
    name: 'chromium',
    packages: ['chromium'],
    binaries: [{ name: 'chromium', dirs: chromiumDirs }],
    usedBy: 'the console’s browser tests (headless, never a downloaded browser)',
    neededFor: 'tests',
  },
  {
    name: 'promtool',
    packages: ['prometheus'],
    binaries: [{ name: 'promtool' }],
    usedBy: 'the alert rules’ checks and unit tests (deploy/prometheus)',
    neededFor: 'tests',
  },
  {
    name: 'docker-compose',
    packages: ['docker-compose'],
    binaries: [{ name: 'docker-compose' }],
    usedBy: 'the compose files’ check (`docker-compose config`)',
    neededFor: 'tests',
  },
  {
    name: 'nginx',
    packages: ['nginx-light'],
    binaries: [{ name: 'nginx' }],
    usedBy: 'the TLS proxy block, run for real on free ports',
    neededFor: 'tests',
  },
  {
    name: 'caddy',
    packages: ['caddy'],
    binaries: [{ name: 'caddy' }],
    usedBy: 'the Caddyfile, run for real on free ports',
    neededFor: 'tests',
  },
  {
    name: 'systemd-analyze',
    packages: ['systemd'],
    binaries: [{ name: 'systemd-analyze' }],
    usedBy: 'the systemd units’ check',
    neededFor: 'tests',
  },
  {
    name: 'openssl',
    packages: ['openssl'],
    binaries: [{ name: 'openssl' }],
    usedBy: 'the proxy test’s certificate, the image check’s secrets',
    neededFor: 'tests',
  },
  {
    name: 'psql',
    packages: ['postgresql-client'],
    binaries: [{ name: 'psql' }],
    usedBy: 'the image check’s clean-up',
    neededFor: 'image-check',
  },
  {
    name: 'podman',
    packages: ['podman', 'runc', 'debootstrap'],
    binaries: [{ name: 'podman' }, { name: 'runc' }, { name: 'debootstrap' }],
    usedBy: 'the image check (`npm run image:check`) and the fresh-machine check',
    neededFor: 'image-check',
  },
];

/** What `npm test` needs: every server and the tools the tests run. */
export const NEEDED_BY_TESTS = [
  ...PRIVATE_SERVERS,
  ...TOOLS.filter((tool) => tool.neededFor === 'tests'),
];

/** What `.ci/run` needs: all of it, the image check's tools too. */
export const NEEDED_BY_CI = [...PRIVATE_SERVERS, ...TOOLS];
