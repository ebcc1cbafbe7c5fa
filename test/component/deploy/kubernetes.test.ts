import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { parseAllDocuments } from 'yaml';

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
  volumeMounts?: { mountPath: string }[];
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
        'Deployment/svcws-listener',
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
  }, 120_000);

  it('refuses an object the schema does not accept, so the check above can fail', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'k8s-'));
    try {
      const listener = await readFile(join(MANIFESTS, 'listener.yaml'), 'utf8');
      await writeFile(
        join(dir, 'broken.yaml'),
        listener.replace('containerPort: 3000', "containerPort: 'http'"),
      );

      const verdicts = await validate(dir);

      const deployment = verdicts.find((verdict) => verdict.kind === 'Deployment');
      expect(deployment?.error).toContain('containerPort must be integer');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('probes each process on the port and paths it serves, with resource requests', async () => {
    const deployments = (await manifests()).filter((one) => one.kind === 'Deployment');
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

  it('gives every budget a selector that picks a Deployment', async () => {
    const all = await manifests();
    const labels = all
      .filter((one) => one.kind === 'Deployment')
      .map((one) => JSON.stringify(one.spec.selector.matchLabels));
    const budgets = all.filter((one) => one.kind === 'PodDisruptionBudget');
    expect(budgets.length).toBeGreaterThanOrEqual(2);
    for (const budget of budgets)
      expect(labels).toContain(JSON.stringify(budget.spec.selector.matchLabels));
  });
});
