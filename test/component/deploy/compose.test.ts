import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { parse } from 'yaml';
import { EnvSchema } from '../../../src/config';
import { SandboxConfig } from '../../../packages/sandbox/src/sandbox-config';

const ROOT = join(__dirname, '../../..');
const BASE = join(ROOT, 'docker-compose.yml');
const SENTINEL = join(ROOT, 'docker-compose.sentinel.yml');
const CLUSTER = join(ROOT, 'docker-compose.cluster.yml');
const PROFILES = ['console', 'history', 'observability'] as const;
const APP_SERVICES = ['web', 'worker', 'console'] as const;

/** Keys compose reads itself (interpolation), named in .env.example's compose section. */
const COMPOSE_KEYS = [
  'IMAGE',
  'NODE_IMAGE',
  'CONFIG_DIR',
  'LISTENER_BIND',
  'CONSOLE_BIND',
  'REDIS_MAXMEMORY',
  'POSTGRES_PASSWORD',
  'GRAFANA_PORT',
  'GRAFANA_ADMIN_PASSWORD',
];
/** OpenTelemetry's own variables, read by its SDK (docs/operations.md, "Tracing"). */
const OTEL_KEYS = /^OTEL_/;

/** What each process serves for a health check: the port key, its default, the path. */
const SERVED = {
  web: { portKey: 'PORT', path: '/healthz' },
  worker: { portKey: 'WORKER_METRICS_PORT', path: '/metrics' },
  console: { portKey: 'CONSOLE_PORT', path: '/healthz' },
} as const;

interface Service {
  image?: string;
  build?: unknown;
  pull_policy?: string;
  profiles?: string[];
  environment?: Record<string, string>;
  command?: string[];
  depends_on?: Record<string, { condition: string }>;
  ports?: (string | { published: number | string; host_ip?: string })[];
  volumes?: (string | { target: string })[];
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  logging?: { driver?: string; options?: Record<string, string> };
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

/** `docker-compose config` in a project directory of its own, with .env.example as .env. */
function composeConfig(files: string[], profiles: readonly string[] = []): Compose {
  const project = mkdtempSync(join(tmpdir(), 'compose-'));
  try {
    copyFileSync(join(ROOT, '.env.example'), join(project, '.env'));
    const args = [...files.flatMap((file) => ['-f', file]), '--project-directory', project];
    const output = execFileSync(
      'docker-compose',
      [...args, ...profiles.flatMap((profile) => ['--profile', profile]), 'config'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    return parse(output) as Compose;
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

/** The services `up` starts with these profiles (docker-compose 1.x `config` lists them all). */
function active(compose: Compose, profiles: readonly string[]): [string, Service][] {
  return Object.entries(compose.services).filter(
    ([, service]) =>
      service.profiles === undefined || service.profiles.some((one) => profiles.includes(one)),
  );
}

function subsets<T>(items: readonly T[]): T[][] {
  return items.reduce<T[][]>((all, item) => [...all, ...all.map((one) => [...one, item])], [[]]);
}

function hostPorts(service: Service): string[] {
  return (service.ports ?? []).map((port) => {
    if (typeof port !== 'string') return `${port.host_ip ?? '0.0.0.0'}:${port.published}`;
    const parts = port.replace(/\/tcp$/, '').split(':');
    return parts.length === 3 ? `${parts[0]}:${parts[1]}` : `0.0.0.0:${parts[0]}`;
  });
}

function mountTargets(service: Service): string[] {
  return (service.volumes ?? []).map((volume) =>
    typeof volume === 'string' ? (volume.split(':')[1] ?? '') : volume.target,
  );
}

function isUnder(file: string, dir: string): boolean {
  return !posix.relative(dir, file).startsWith('..');
}

/** Every `KEY=value` of .env.example, commented or not. */
function exampleEntries(): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of readFileSync(join(ROOT, '.env.example'), 'utf8').split('\n')) {
    const match = /^#?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match?.[1] !== undefined) entries.set(match[1], match[2] ?? '');
  }
  return entries;
}

describe('docker-compose.yml', () => {
  const base = composeConfig([BASE]);

  it.each(subsets(PROFILES).map((profiles) => [profiles.join('+') || 'no profile', profiles]))(
    'is valid for docker-compose config with %s, alone and with the Sentinel file',
    (_name, profiles) => {
      expect(composeConfig([BASE], profiles).services.web).toBeDefined();
      const sentinel = composeConfig([BASE, SENTINEL], profiles);
      for (const name of APP_SERVICES) {
        expect(sentinel.services[name]?.environment?.REDIS_SENTINELS).toContain('sentinel-1:26379');
      }
    },
  );

  it.each(subsets(PROFILES).map((profiles) => [profiles.join('+') || 'no profile', profiles]))(
    'with the cluster file and %s, points web, worker and console at its six nodes, each a cluster-mode Redis, once they are joined',
    (_name, profiles) => {
      const cluster = composeConfig([BASE, CLUSTER], profiles);
      const seeds = cluster.services.web?.environment?.REDIS_CLUSTER_NODES ?? '';
      const nodes = seeds.split(',').map((seed) => seed.split(':')[0] ?? '');
      expect(nodes).toHaveLength(6);
      for (const node of nodes) {
        const command = cluster.services[node]?.command?.join(' ') ?? '';
        expect([node, command]).toEqual([node, expect.stringContaining('--cluster-enabled yes')]);
        expect(command).toContain(`--cluster-announce-hostname "$$NODE_NAME"`);
        expect(cluster.services[node]?.environment?.NODE_NAME).toBe(node);
      }
      // The one-shot join names the same nodes, and every process waits for it to succeed.
      const join = cluster.services['redis-cluster-create'] ?? {};
      expect(join.command?.slice(2)).toEqual(seeds.split(','));
      for (const name of APP_SERVICES) {
        const service = cluster.services[name] ?? {};
        expect(service.environment?.REDIS_CLUSTER_NODES).toBe(seeds);
        expect(service.environment?.REDIS_SENTINELS).toBeUndefined();
        expect(service.depends_on?.['redis-cluster-create']).toEqual({
          condition: 'service_completed_successfully',
        });
      }
      // A 200 once a replica of the queue's primary has the job, as with Sentinel.
      expect(cluster.services.web?.environment?.REDIS_ACK_REPLICAS).toBe('1');
    },
  );

  it('points each health check at the port and path its process serves, and publishes that port', () => {
    for (const name of APP_SERVICES) {
      const service = base.services[name];
      const { portKey, path } = SERVED[name];
      const portDefault = String(EnvSchema.shape[portKey].parse(undefined));
      const check = service?.healthcheck?.test.join(' ') ?? '';
      expect(check).toContain(`process.env.${portKey}||${portDefault})+'${path}'`);
      if (name !== 'worker') expect(hostPorts(service ?? {})).toEqual([`127.0.0.1:${portDefault}`]);
    }
  });

  it('publishes no host port twice in any combination of profiles, on one Redis, Sentinel or a cluster', () => {
    const withSentinel = composeConfig([BASE, SENTINEL]);
    const withCluster = composeConfig([BASE, CLUSTER]);
    for (const compose of [base, withSentinel, withCluster]) {
      for (const profiles of subsets(PROFILES)) {
        const published = active(compose, profiles).flatMap(([, service]) => hostPorts(service));
        expect(published).toEqual([...new Set(published)]);
      }
    }
  });

  it('mounts every file and directory the configuration names, where the services read them', () => {
    const files = [...exampleEntries()].filter(([key]) => key.endsWith('_FILE'));
    expect(files.map(([key]) => key).sort()).toEqual([
      'CONSOLE_ROLES_FILE',
      'CONSOLE_TOKENS_FILE',
      'EXPECTED_EVENTS_FILE',
      'INSTITUTIONS_FILE',
      'ROUTES_FILE',
    ]);
    for (const name of APP_SERVICES) {
      const targets = mountTargets(base.services[name] ?? {});
      for (const [key, file] of files) {
        expect([key, targets.some((dir) => isUnder(file, dir))]).toEqual([key, true]);
      }
    }
    const worker = base.services.worker ?? {};
    expect(mountTargets(worker)).toContain(worker.environment?.RECORDS_DIR);
    // A file route's directory (to: { file: { dir: /app/archive/… } }) is a volume too.
    expect(mountTargets(worker)).toContain('/app/archive');
  });

  it('starts the console only with its profile, and PostgreSQL only with the history profile', () => {
    expect(active(base, []).map(([name]) => name)).toEqual(['redis', 'web', 'worker']);
    expect(base.services.console?.profiles).toEqual(['console']);
    expect(base.services.postgres?.profiles).toEqual(['history']);
    const example = exampleEntries();
    const database = new URL(example.get('DATABASE_URL') ?? '');
    expect([database.hostname, database.port, database.pathname]).toEqual([
      'postgres',
      '5432',
      '/svcws',
    ]);
    expect(example.has('HISTORY_KEY')).toBe(true);
  });

  it('ships the services’ log lines to Loki with the observability profile, Grafana showing both dashboards', () => {
    const observed = composeConfig([BASE], ['observability']);
    const shipping = ['loki', 'alloy'].map((name) => observed.services[name]?.profiles);
    expect(shipping).toEqual([['observability'], ['observability']]);
    const alloy = observed.services.alloy ?? {};
    expect(mountTargets(alloy)).toEqual(
      expect.arrayContaining(['/etc/alloy/svcws', '/var/run/docker.sock']),
    );
    expect(mountTargets(observed.services.loki ?? {})).toContain('/etc/loki/svcws');
    expect(mountTargets(observed.services.grafana ?? {})).toEqual(
      expect.arrayContaining([
        '/var/lib/grafana/dashboards/svcws/svcws.json',
        '/var/lib/grafana/dashboards/svcws/svcws-logs.json',
      ]),
    );
    // Every service's own lines are rotated, the shippers' too.
    for (const [name, service] of Object.entries(observed.services)) {
      expect([name, service.logging?.options]).toEqual([
        name,
        { 'max-size': '10m', 'max-file': '3' },
      ]);
    }
  });

  it('builds one named image once, which the three processes run', () => {
    const building = Object.entries(base.services).filter(
      ([, service]) => service.build !== undefined,
    );
    expect(building.map(([name]) => name)).toEqual(['web']);
    const images = APP_SERVICES.map((name) => base.services[name]?.image);
    expect(images).toEqual([
      'svcws-listener:local',
      'svcws-listener:local',
      'svcws-listener:local',
    ]);
    expect(base.services.worker?.pull_policy).toBe('never');
    expect(base.services.console?.pull_policy).toBe('never');
  });
});

/** The named volume mounted at `target` (undefined for a bind mount or none). */
function namedVolumeAt(service: Service, target: string): string | undefined {
  for (const volume of service.volumes ?? []) {
    const [source, at] =
      typeof volume === 'string' ? volume.split(':') : [undefined, volume.target];
    if (at === target && source !== undefined && /^[a-z0-9][\w.-]*$/i.test(source)) return source;
  }
  return undefined;
}

describe('docker-compose.yml: the listener spool', () => {
  it.each([
    ['alone', [BASE]],
    ['with the Sentinel file', [BASE, SENTINEL]],
    ['with the cluster file', [BASE, CLUSTER]],
  ])('keeps SPOOL_DIR on a named volume of the listener alone (%s)', (_name, files) => {
    const compose = composeConfig(files, PROFILES);
    const web = compose.services.web ?? {};
    const dir = web.environment?.SPOOL_DIR ?? '';

    expect(dir).toBe('/app/spool');
    const volume = namedVolumeAt(web, dir);
    expect(volume).toBe('spool');
    expect(Object.keys(compose.volumes ?? {})).toContain(volume);
    // One spool directory per listener process (its lock refuses a second).
    const others = Object.entries(compose.services).filter(
      ([name, service]) => name !== 'web' && namedVolumeAt(service, dir) !== undefined,
    );
    expect(others).toEqual([]);
  });

  it('gives the listener time to answer what is in flight and drain its spool before a SIGKILL', () => {
    const web = composeConfig([BASE]).services.web ?? {};
    const grace = /^(\d+)s$/.exec(web.stop_grace_period ?? '');
    const shutdownMs = Number(
      exampleEntries().get('SHUTDOWN_TIMEOUT_MS') ??
        EnvSchema.shape.SHUTDOWN_TIMEOUT_MS.parse(undefined),
    );

    expect(Number(grace?.[1]) * 1000).toBeGreaterThan(shutdownMs);
  });
});

describe('.env.example', () => {
  const example = exampleEntries();

  it('lists every key of the configuration schema and of the sandbox, and no key nothing reads', () => {
    const schemaKeys = [...Object.keys(EnvSchema.shape), ...Object.keys(SandboxConfig.shape)];
    expect(schemaKeys.filter((key) => !example.has(key))).toEqual([]);
    const known = new Set([...schemaKeys, ...COMPOSE_KEYS]);
    expect([...example.keys()].filter((key) => !known.has(key) && !OTEL_KEYS.test(key))).toEqual(
      [],
    );
  });

  it('gives values that make sense inside the compose network', () => {
    expect(example.get('OTEL_EXPORTER_OTLP_ENDPOINT')).toBe('http://jaeger:4318');
    expect(example.get('SVC_BASE_URL')).toBe('');
    for (const [key, value] of example) {
      if (key.endsWith('_FILE'))
        expect([key, value.startsWith('/app/config/')]).toEqual([key, true]);
    }
    // Compose sets these itself, so .env's host values (loopback) never reach a container.
    const base = composeConfig([BASE]);
    for (const name of APP_SERVICES) {
      expect(base.services[name]?.environment?.REDIS_URL).toBe('redis://redis:6379');
    }
    expect(base.services.console?.environment?.CONSOLE_HOST).toBe('0.0.0.0');
  });

  it('binds the listener and the worker metrics to every interface inside their containers (the defaults are the loopback)', () => {
    const base = composeConfig([BASE]);

    expect(base.services.web?.environment?.HOST).toBe('0.0.0.0');
    // Prometheus scrapes worker:9464 across the compose network.
    expect(base.services.worker?.environment?.WORKER_METRICS_HOST).toBe('0.0.0.0');
    expect(EnvSchema.shape.HOST.parse(undefined)).toBe('127.0.0.1');
    expect(EnvSchema.shape.WORKER_METRICS_HOST.parse(undefined)).toBe('127.0.0.1');
  });

  it("gives in operations.md's observability table the host ports compose publishes", () => {
    const all = composeConfig([BASE], PROFILES);
    const doc = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `(prometheus|grafana|jaeger)` +\| (127\.0\.0\.1:\d+) /gm)];

    expect(rows.map(([, name]) => name)).toEqual(['prometheus', 'grafana', 'jaeger']);
    for (const [, name = '', address] of rows) {
      expect([name, hostPorts(all.services[name] ?? {})]).toEqual([name, [address]]);
    }
  });

  it("rotates every service's log (json-file with a size and a count), with every profile", () => {
    const all = composeConfig([BASE], PROFILES);

    const unrotated = Object.entries(all.services)
      .filter(
        ([, service]) =>
          service.logging?.driver !== 'json-file' ||
          !/^\d+[kmg]$/.test(service.logging.options?.['max-size'] ?? '') ||
          !/^\d+$/.test(service.logging.options?.['max-file'] ?? ''),
      )
      .map(([name]) => name);
    expect(Object.keys(all.services).length).toBeGreaterThan(5);
    expect(unrotated).toEqual([]);
  });
});
