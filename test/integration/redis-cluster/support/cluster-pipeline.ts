import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { institutionQueueName } from '../../../../src/institutions/institution-queue-name';
import { hashTagged } from '../../../../src/redis/hash-tag';
import { routeQueueName } from '../../../../src/routes/route-queue-name';
import { localCertificate } from '../../../helpers/local-certificate';
import { startPrivateCluster } from '../../../helpers/private-cluster';
import type { PrivateCluster } from '../../../helpers/private-cluster';
import { startRecordingHttpReceiver } from '../../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../../helpers/recording-http-receiver';
import { startDeliveries } from '../../redis-ha/support/send-deliveries';
import type { DeliveryRecord } from '../../redis-ha/support/send-deliveries';
import { killChildren, spawnWorker } from '../../worker/support/child-process';
import type { ChildWorker } from '../../worker/support/child-process';

/** A consortium of three on one deployment: each member its queue, both routes shared. */
export const MEMBERS = ['ALPHA', 'BRAVO', 'CHARLIE'] as const;
export const ROUTES = ['hook', 'archive'] as const;
export const QUEUE_NAME = 'consortium';

export interface ClusterPipeline {
  readonly cluster: PrivateCluster;
  readonly receiver: RecordingHttpReceiver;
  readonly web: ChildWorker;
  readonly worker: ChildWorker;
  /** The listener's port. */
  readonly port: number;
  readonly archiveDir: string;
  readonly env: Readonly<Record<string, string>>;
  /** Every queue's name as it is in Redis (tagged): the members', the routes', the base one. */
  readonly queueNames: readonly string[];
  secretOf(member: string): string;
  close(): Promise<void>;
}

const template = JSON.parse(
  readFileSync(join(__dirname, '../../../fixtures/events/loan-created.json'), 'utf8'),
) as Record<string, unknown>;

/** A member's LOAN_CREATED with this id, as its platform sends it. */
function loanOf(member: string): (id: string) => string {
  return (id) => JSON.stringify({ ...template, id, institution: { value: member } });
}

/**
 * Every member's platform sending signed LOAN_CREATED deliveries at `perSecond` each, ids
 * `<member's initial><mark><n>`; `stop` gives every delivery's record.
 */
export function membersDeliveries(
  pipeline: ClusterPipeline,
  perSecond: number,
  mark: string,
): { stop: () => Promise<DeliveryRecord[]> } {
  const runs = MEMBERS.map((member) =>
    startDeliveries({
      port: pipeline.port,
      path: `/webhooks/${member}`,
      secret: pipeline.secretOf(member),
      perSecond,
      idPrefix: `${member.slice(0, 1)}${mark}`,
      bodyOf: loanOf(member),
    }),
  );
  return { stop: async () => (await Promise.all(runs.map((run) => run.stop()))).flat() };
}

/**
 * A private Redis Cluster (3 primaries, a replica each), the listener (src/bin/web.ts) and the
 * worker (src/bin/worker.ts) on it through REDIS_CLUSTER_NODES, for a 3-member consortium with
 * two routes: HTTP to a recording receiver, and a JSONL archive. `extra` is more environment;
 * `tls`: the processes reach the nodes over TLS by name (REDIS_CLUSTER_TLS=on), with a
 * certificate for `localhost` alone, which they trust (NODE_EXTRA_CA_CERTS).
 */
export async function startClusterPipeline(
  extra: Record<string, string> = {},
  { tls = false }: { tls?: boolean } = {},
): Promise<ClusterPipeline> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-cluster-'));
  const certificate = tls ? await localCertificate(dir, 'DNS:localhost') : undefined;
  const cluster = await startPrivateCluster(
    3,
    certificate === undefined ? {} : { tls: certificate },
  );
  const reach =
    certificate === undefined
      ? { REDIS_CLUSTER_NODES: cluster.seeds }
      : {
          REDIS_CLUSTER_NODES: cluster.tlsSeeds,
          REDIS_CLUSTER_TLS: 'on',
          NODE_EXTRA_CA_CERTS: certificate.certFile,
        };
  const receiver = await startRecordingHttpReceiver(200);
  const archiveDir = join(dir, 'archive');
  const secretOf = (member: string): string => `webhook-secret-of-${member.toLowerCase()}`;
  await writeFile(
    join(dir, 'institutions.yaml'),
    `institutions:\n${MEMBERS.map(
      (code) =>
        `  - code: ${code}\n    webhookSecret: ${secretOf(code)}\n    apiKey: unused-${code}\n` +
        `    baseUrl: http://127.0.0.1:9\n`,
    ).join('')}`,
  );
  await writeFile(
    join(dir, 'routes.yaml'),
    [
      'routes:',
      '  - name: hook',
      `    to: { http: { url: "${receiver.origin}/hook" } }`,
      '  - name: archive',
      `    to: { file: { dir: "${archiveDir}" } }`,
      '',
    ].join('\n'),
  );
  const env = {
    ...reach,
    QUEUE_NAME,
    INSTITUTIONS_FILE: join(dir, 'institutions.yaml'),
    ROUTES_FILE: join(dir, 'routes.yaml'),
    RECORDS_DIR: join(dir, 'records'),
    WORKER_METRICS_PORT: '0',
    WORKER_CONCURRENCY: '8',
    RECONCILE_INTERVAL_SECONDS: '0',
    PORT: '0',
    SPOOL_DIR: join(dir, 'spool'),
    ...extra,
  };
  const worker = spawnWorker('src/bin/worker.ts', env);
  const web = spawnWorker('src/bin/web.ts', env);
  const close = async (): Promise<void> => {
    await killChildren([web, worker]);
    await receiver.close();
    await cluster.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await worker.waitForLine((line) => line.msg === 'worker ready');
    const ready = await web.waitForLine((line) => line.msg === 'listener ready');
    const base = hashTagged(QUEUE_NAME);
    const queueNames = [
      base,
      ...MEMBERS.map((code) => institutionQueueName(base, code)),
      ...ROUTES.map((route) => routeQueueName(base, route)),
    ];
    return {
      cluster,
      receiver,
      web,
      worker,
      port: Number(ready.port),
      archiveDir,
      env,
      queueNames,
      secretOf,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
