import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { EnvSchema } from '../../../src/config';

const ROOT = join(__dirname, '../../..');
const MANIFESTS = join(ROOT, 'deploy/kubernetes');
const VALIDATOR = join(__dirname, 'support/validate-kubernetes.mts');

interface Verdict {
  file: string;
  kind: string;
  name: string | null;
  error: string | null;
}
interface Probe {
  httpGet: { path: string; port: string };
}
interface Container {
  command: string[];
  ports: { name: string; containerPort: number }[];
  env?: { name: string; value: string }[];
  readinessProbe: Probe;
  livenessProbe: Probe;
  resources: { requests: { cpu: string; memory: string } };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface Manifest {
  kind: string;
  metadata: { name: string };
  spec: {
    selector: { matchLabels: Record<string, string> };
    template: { spec: { containers: Container[] } };
    scaleTargetRef: { name: string };
    triggers: { type: string; metadata: { query: string } }[];
  };
  data: Record<string, string>;
  stringData: Record<string, string>;
}

/** What runs a process: the listener's StatefulSet, the other Deployments. */
const isWorkload = (one: Manifest): boolean => ['Deployment', 'StatefulSet'].includes(one.kind);

function validate(dir: string): Promise<Verdict[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', VALIDATOR, dir],
      { cwd: ROOT, timeout: 110_000 },
      (error, stdout, stderr) => {
        if (error !== null) reject(new Error(`${error.message}\n${stderr}`));
        else
          resolve(
            stdout
              .trim()
              .split('\n')
              .map((line) => JSON.parse(line) as Verdict),
          );
      },
    );
  });
}

async function manifests(): Promise<Manifest[]> {
  const files = (await readdir(MANIFESTS, { recursive: true })).filter((file) =>
    file.endsWith('.yaml'),
  );
  const all: Manifest[] = [];
  for (const file of files) {
    const text = await readFile(join(MANIFESTS, file), 'utf8');
    all.push(...parseAllDocuments(text).map((document) => document.toJS() as Manifest));
  }
  return all;
}

/** What each process serves: the listener's ready and live paths, the worker's only page. */
const SERVED: Record<string, { bin: string; ready: string; live: string; port: number }> = {
  'svcws-listener': { bin: 'dist/bin/web.js', ready: '/readyz', live: '/healthz', port: 3000 },
  'svcws-worker': { bin: 'dist/bin/worker.js', ready: '/metrics', live: '/metrics', port: 9464 },
  'svcws-console': { bin: 'dist/bin/console.js', ready: '/healthz', live: '/healthz', port: 3001 },
};

describe('deploy/kubernetes', () => {
  it('holds only objects the Kubernetes (and KEDA) schemas accept', async () => {
    const verdicts = await validate(MANIFESTS);

    expect(verdicts.filter((verdict) => verdict.error !== null)).toEqual([]);
    expect(verdicts.map((verdict) => `${verdict.kind}/${verdict.name ?? ''}`).sort()).toEqual(
      expect.arrayContaining([
        'StatefulSet/svcws-listener',
        'Service/svcws-listener',
        'Service/svcws-listener-pods',
        'Deployment/svcws-worker',
        'Deployment/svcws-console',
        'PodDisruptionBudget/svcws-listener',
        'Secret/svcws-secrets',
        'ConfigMap/svcws-routes',
        'ConfigMap/svcws-institutions',
        'ScaledObject/svcws-worker',
        'Ingress/svcws-listener',
      ]),
    );
  });

  it('refuses an object the schema does not accept, so the check above can fail', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'k8s-'));
    try {
      const listener = await readFile(join(MANIFESTS, 'listener.yaml'), 'utf8');
      await writeFile(
        join(dir, 'broken.yaml'),
        listener.replace('containerPort: 3000', "containerPort: 'http'"),
      );

      const verdicts = await validate(dir);

      const statefulSet = verdicts.find((verdict) => verdict.kind === 'StatefulSet');
      expect(statefulSet?.error).toContain('containerPort must be integer');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('probes each process on the port and paths it serves, with resource requests', async () => {
    const deployments = (await manifests()).filter(isWorkload);
    expect(deployments.map((one) => one.metadata.name).sort()).toEqual(Object.keys(SERVED).sort());
    for (const deployment of deployments) {
      const served = SERVED[deployment.metadata.name];
      const container = deployment.spec.template.spec.containers[0];
      expect(container?.command).toEqual(['node', served?.bin]);
      const port = container?.ports.find(
        (one) => one.name === container.readinessProbe.httpGet.port,
      );
      expect(port?.containerPort).toBe(served?.port);
      expect(container?.livenessProbe.httpGet.port).toBe(port?.name);
      expect([
        container?.readinessProbe.httpGet.path,
        container?.livenessProbe.httpGet.path,
      ]).toEqual([served?.ready, served?.live]);
      expect(container?.resources.requests).toEqual({
        cpu: expect.any(String),
        memory: expect.any(String),
      });
    }
  });

  it("binds the listener and the worker metrics to the pod's address, where probes and Prometheus reach them", async () => {
    const env = (await manifests()).find(
      (one) => one.kind === 'ConfigMap' && one.metadata.name === 'svcws-env',
    ) as unknown as { data: Record<string, string> } | undefined;

    expect(env?.data.HOST).toBe('0.0.0.0');
    expect(env?.data.WORKER_METRICS_HOST).toBe('0.0.0.0');
  });

  it('mounts the files the ConfigMap keys name, keeps the secrets in a Secret, and scales the worker on waiting jobs', async () => {
    const all = await manifests();
    const env = all.find((one) => one.kind === 'ConfigMap' && one.metadata.name === 'svcws-env');
    const secret = all.find(
      (one) => one.kind === 'Secret' && one.metadata.name === 'svcws-secrets',
    );
    expect(Object.keys(secret?.stringData ?? {})).toEqual(
      expect.arrayContaining(['WEBHOOK_SECRET', 'SVC_API_KEY', 'HISTORY_KEY']),
    );
    for (const key of ['WEBHOOK_SECRET', 'SVC_API_KEY', 'HISTORY_KEY', 'DATABASE_URL']) {
      expect([key, Object.keys(env?.data ?? {}).includes(key)]).toEqual([key, false]);
    }
    const worker = all.find(
      (one) => one.kind === 'Deployment' && one.metadata.name === 'svcws-worker',
    );
    const mounts =
      worker?.spec.template.spec.containers[0]?.volumeMounts?.map((one) => one.mountPath) ?? [];
    expect(mounts).toContain(dirname(env?.data.ROUTES_FILE ?? ''));
    const consoleDeployment = all.find(
      (one) => one.kind === 'Deployment' && one.metadata.name === 'svcws-console',
    );
    const consoleMounts = consoleDeployment?.spec.template.spec.containers[0]?.volumeMounts?.map(
      (one) => one.mountPath,
    );
    expect(consoleMounts).toContain(posix.dirname(env?.data.CONSOLE_TOKENS_FILE ?? ''));

    const scaler = all.find((one) => one.kind === 'ScaledObject');
    expect(scaler?.spec.scaleTargetRef.name).toBe('svcws-worker');
    expect(scaler?.spec.triggers[0]?.type).toBe('prometheus');
    expect(scaler?.spec.triggers[0]?.metadata.query).toContain(
      `bullmq_job_count{queue="${env?.data.QUEUE_NAME ?? ''}",state="waiting"}`,
    );
  });

  it('gives every budget a selector that picks a Deployment or StatefulSet', async () => {
    const all = await manifests();
    const labels = all
      .filter(isWorkload)
      .map((one) => JSON.stringify(one.spec.selector.matchLabels));
    const budgets = all.filter((one) => one.kind === 'PodDisruptionBudget');
    expect(budgets.length).toBeGreaterThanOrEqual(2);
    for (const budget of budgets)
      expect(labels).toContain(JSON.stringify(budget.spec.selector.matchLabels));
  });
});

interface ListenerSet {
  kind: string;
  metadata: { name: string };
  spec: {
    serviceName?: string;
    persistentVolumeClaimRetentionPolicy?: { whenScaled?: string; whenDeleted?: string };
    template: {
      metadata: { labels: Record<string, string> };
      spec: {
        terminationGracePeriodSeconds: number;
        securityContext: { runAsUser: number; fsGroup?: number };
        containers: Container[];
        volumes?: { name: string }[];
      };
    };
    volumeClaimTemplates?: {
      metadata: { name: string };
      spec: { accessModes: string[]; resources: { requests: { storage: string } } };
    }[];
  };
}
interface ServiceManifest {
  kind: 'Service';
  metadata: { name: string };
  spec: { clusterIP?: string; selector: Record<string, string>; ports: { targetPort: string }[] };
}

/** A Kubernetes quantity in bytes (the binary suffixes a claim uses, or none). */
function bytesOf(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi|Ti)?$/.exec(quantity);
  if (match === null) throw new Error(`not a quantity this test reads: ${quantity}`);
  const power = ['', 'Ki', 'Mi', 'Gi', 'Ti'].indexOf(match[2] ?? '');
  return Number(match[1]) * 1024 ** power;
}

/** The value a container's env gives a key, else the configuration schema's default. */
function envOf(container: Container, key: 'SPOOL_DIR' | 'SPOOL_MAX_BYTES' | 'SHUTDOWN_TIMEOUT_MS') {
  const given = container.env?.find((one) => one.name === key)?.value;
  return given ?? EnvSchema.shape[key].parse(undefined);
}

function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

/** The listener's StatefulSet, and every object beside it. */
async function listenerSet(): Promise<{ set: ListenerSet; all: Manifest[] }> {
  const all = await manifests();
  const found = all.find(
    (one) => one.kind === 'StatefulSet' && one.metadata.name === 'svcws-listener',
  );
  if (found === undefined) throw new Error('no StatefulSet svcws-listener');
  return { set: found as unknown as ListenerSet, all };
}

/** An object that is, or names (a scaleTargetRef, a kind/name pair), the listener as a Deployment. */
function refersToListenerDeployment(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const name = record.name ?? (record.metadata as { name?: unknown } | undefined)?.name;
  if (record.kind === 'Deployment' && name === 'svcws-listener') return true;
  return Object.values(record).some(refersToListenerDeployment);
}

describe('deploy/kubernetes: the listener and its spool', () => {
  it('gives each listener pod a claim of its own, SPOOL_DIR inside it, kept when scaled down', async () => {
    const { set } = await listenerSet();
    const pod = set.spec.template.spec;
    const container = pod.containers[0];
    if (container === undefined) throw new Error('no container');
    const [claim, ...more] = set.spec.volumeClaimTemplates ?? [];

    expect(more).toEqual([]);
    // A directory of the listener's own inside the volume: the volume's root (fsGroup) is not 0700.
    expect(envOf(container, 'SPOOL_DIR')).toBe('/app/spool/data');
    const mount = container.volumeMounts?.find((one) => one.name === claim?.metadata.name);
    expect(mount).toEqual({ name: 'spool', mountPath: '/app/spool' });
    // A pod volume of the same name would stand in for the claim.
    expect((pod.volumes ?? []).map((one) => one.name)).not.toContain(claim?.metadata.name);
    expect(claim?.spec.accessModes).toEqual(['ReadWriteOnce']);
    expect(bytesOf(claim?.spec.resources.requests.storage ?? '')).toBeGreaterThan(
      Number(envOf(container, 'SPOOL_MAX_BYTES')),
    );
    // The image runs as uid 1000: the volume is made writable for its group.
    expect([pod.securityContext.runAsUser, pod.securityContext.fsGroup]).toEqual([1000, 1000]);
    expect(set.spec.persistentVolumeClaimRetentionPolicy?.whenScaled).toBe('Retain');
    // Time for the requests in flight and the spool's last drain before the SIGKILL.
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(
      Number(envOf(container, 'SHUTDOWN_TIMEOUT_MS')),
    );
  });

  it('is reached through the Service the Ingress names, and governed by a headless Service', async () => {
    const { set, all } = await listenerSet();
    const labels = set.spec.template.metadata.labels;
    const services = all.filter((one) => one.kind === 'Service') as unknown as ServiceManifest[];
    const governing = services.find((one) => one.metadata.name === set.spec.serviceName);
    const ingress = all.find((one) => one.kind === 'Ingress') as unknown as {
      spec: { rules: { http: { paths: { backend: { service: { name: string } } }[] } }[] };
    };
    const backend = ingress.spec.rules[0]?.http.paths[0]?.backend.service.name;
    const reached = services.find((one) => one.metadata.name === backend);

    expect(governing?.spec.clusterIP).toBe('None');
    expect(selects(governing?.spec.selector ?? { none: '' }, labels)).toBe(true);
    expect(reached?.metadata.name).toBe('svcws-listener');
    expect(reached?.spec.clusterIP).toBeUndefined();
    expect(selects(reached?.spec.selector ?? { none: '' }, labels)).toBe(true);
  });
});

describe('deploy/kubernetes after the listener became a StatefulSet', () => {
  it('mounts the institutions file in the listener where the worker reads it (INSTITUTIONS_FILE)', async () => {
    const { set, all } = await listenerSet();
    const worker = all.find(
      (one) => one.kind === 'Deployment' && one.metadata.name === 'svcws-worker',
    );
    const mountOf = (container: Container | undefined) =>
      container?.volumeMounts?.find((one) => one.mountPath === '/etc/svcws/institutions');

    expect(mountOf(worker?.spec.template.spec.containers[0])).toBeDefined();
    expect(mountOf(set.spec.template.spec.containers[0])).toEqual(
      mountOf(worker?.spec.template.spec.containers[0]),
    );
  });

  it('leaves no listener Deployment, and nothing that names one', async () => {
    const all = await manifests();
    const files = (await readdir(MANIFESTS, { recursive: true })).filter((file) =>
      /\.(ya?ml|md)$/.test(file),
    );
    const texts = await Promise.all(files.map((file) => readFile(join(MANIFESTS, file), 'utf8')));
    const docs = await readFile(join(ROOT, 'docs/deployment.md'), 'utf8');

    expect(
      all.filter(refersToListenerDeployment).map((one) => `${one.kind}/${one.metadata.name}`),
    ).toEqual([]);
    for (const text of [...texts, docs]) {
      expect(text).not.toMatch(/deployment(\.apps)?\/svcws-listener/i);
    }
  });
});
