import { keySlot } from '../../../src/redis/key-slot';
import type { DeliveryRecord } from '../redis-ha/support/send-deliveries';
import { archivedIds, receivedIds, tallyRoute } from '../pipeline/support/route-tally';
import type { RouteTally } from '../pipeline/support/route-tally';
import { ROUTES, membersDeliveries, startClusterPipeline } from './support/cluster-pipeline';
import type { ClusterPipeline } from './support/cluster-pipeline';

const PER_SECOND = 30;
const BEFORE_MS = 5000;
const AFTER_MS = 15_000;
const RESTART_AFTER_MS = 5000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type Tallies = Record<(typeof ROUTES)[number], RouteTally>;

async function talliesOf(
  pipeline: ClusterPipeline,
  expected: ReadonlySet<string>,
): Promise<Tallies> {
  return {
    hook: tallyRoute(receivedIds(pipeline.receiver, '/hook'), expected),
    archive: tallyRoute(await archivedIds(pipeline.archiveDir), expected),
  };
}

/** Every route has every expected event, or the deadline passed; then what each received. */
async function settled(pipeline: ClusterPipeline, expected: ReadonlySet<string>): Promise<Tallies> {
  const deadline = Date.now() + 120_000;
  let now = await talliesOf(pipeline, expected);
  while (ROUTES.some((route) => now[route].missing.count > 0) && Date.now() < deadline) {
    await sleep(1000);
    now = await talliesOf(pipeline, expected);
  }
  // A stalled check (30 s) may still run a job again: counted too.
  await sleep(5000);
  return talliesOf(pipeline, expected);
}

/** The primary that serves the most of this deployment's queues. */
async function busiestPrimary(pipeline: ClusterPipeline): Promise<number> {
  const counts = new Map<number, number>();
  for (const name of pipeline.queueNames) {
    const port = await pipeline.cluster.ownerOf(keySlot(`bull:${name}:id`));
    counts.set(port, (counts.get(port) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
}

/** Seconds from `since` (epoch ms) to the log line's ISO `time`. */
const secondsAfter = (since: number, line: Record<string, unknown>): number =>
  (Date.parse(String(line.time)) - since) / 1000;

/**
 * How long the disruption held things up, from the processes' own lines: the listener's last
 * delivery that went to the spool, the last drain that left it empty, and the longest pause
 * between two route deliveries of the worker from the disruption to the end of the load (seconds).
 */
function resumeFigures(pipeline: ClusterPipeline, since: number, until: number): string {
  const web = pipeline.web.lines();
  const spooled = web.filter((line) => line.msg === 'delivery' && line.outcome === 'spooled');
  const drained = web.filter(
    (line) => line.msg === 'spool drained into the queue' && line.left === 0,
  );
  const last = (lines: Record<string, unknown>[]): string => {
    const at = lines.at(-1);
    return at === undefined ? '-' : `${secondsAfter(since, at).toFixed(1)} s`;
  };
  const delivered = pipeline.worker
    .lines()
    .filter((line) => line.msg === 'delivered')
    .map((line) => secondsAfter(since, line))
    .filter((at) => at >= -1 && at <= (until - since) / 1000)
    .sort((a, b) => a - b);
  const pause = delivered.reduce(
    (longest, at, index) => Math.max(longest, at - (delivered[index - 1] ?? at)),
    0,
  );
  return `last spooled ${last(spooled)}, spool empty ${last(drained)}, longest pause between route deliveries ${pause.toFixed(1)} s`;
}

/**
 * What happens to the busiest primary, `victim`, once the load runs; resolves when it is over,
 * with what the listener's /readyz said of the victim meanwhile (where it looked).
 */
type Disruption = (pipeline: ClusterPipeline, victim: number) => Promise<unknown>;

/** The listener's /readyz entry for one node (`redisNodes`, health-routes.ts). */
async function readyzNode(pipeline: ClusterPipeline, port: number): Promise<unknown> {
  const answer = await fetch(`http://127.0.0.1:${String(pipeline.port)}/readyz`);
  const body = (await answer.json()) as { redisNodes?: { node: string }[] };
  return body.redisNodes?.find((one) => one.node === `127.0.0.1:${String(port)}`);
}

/** kill -9, then restarted as systemd or Kubernetes would: back as the new primary's replica. */
const killed: Disruption = async (pipeline, victim) => {
  const node = pipeline.cluster.nodes.find(({ port }) => port === victim);
  await node?.server.stop();
  // Past the node timeout (2 s): the others have failed it by now.
  await sleep(RESTART_AFTER_MS - 1000);
  const seen = await readyzNode(pipeline, victim);
  await sleep(1000);
  await node?.server.start();
  return seen;
};

/** A planned failover: its replica takes over (CLUSTER FAILOVER sent to the replica). */
const handedOver: Disruption = async (pipeline, victim) => {
  const roles = await pipeline.cluster.roles();
  const primaryId = roles.find((node) => node.port === victim)?.id;
  const replica = roles.find((node) => node.primaryId === primaryId);
  if (replica === undefined) throw new Error(`no replica of :${String(victim)}`);
  const client = pipeline.cluster.nodeClient(replica.port);
  try {
    await client.call('cluster', 'failover');
  } finally {
    client.disconnect();
  }
};

/** The primary stops answering for 1.5 s (DEBUG SLEEP), under the cluster's node timeout (2 s). */
const stalled: Disruption = async (pipeline, victim) => {
  const client = pipeline.cluster.nodeClient(victim);
  try {
    await client.call('debug', 'sleep', '1.5');
  } finally {
    client.disconnect();
  }
};

describe.each([
  ['is killed (-9) and restarted', killed, true],
  ['is handed over to its replica (CLUSTER FAILOVER)', handedOver, true],
  ['stalls 1.5 s (DEBUG SLEEP)', stalled, false],
] as const)(
  'a Redis Cluster whose busiest primary %s under a paced load, REDIS_ACK_REPLICAS=1',
  (how, disrupt, movesPrimary) => {
    let pipeline: ClusterPipeline;
    beforeAll(async () => {
      pipeline = await startClusterPipeline({
        REDIS_ACK_REPLICAS: '1',
        REDIS_ACK_TIMEOUT_MS: '1000',
      });
    });
    afterAll(async () => {
      await pipeline.close();
    });

    it('answers every delivery 200, delivers every event to each route, and no process exits or restarts', async () => {
      const deliveries = membersDeliveries(pipeline, PER_SECOND, '8');
      await sleep(BEFORE_MS);
      const victim = await busiestPrimary(pipeline);
      const startedAt = Date.now();
      const seen = await disrupt(pipeline, victim);
      await sleep(Math.max(0, AFTER_MS - (Date.now() - startedAt)));
      const records: DeliveryRecord[] = await deliveries.stop();
      const loadEnded = Date.now();
      const expected = new Set(records.filter((one) => one.status === 200).map((one) => one.id));
      const tallies = await settled(pipeline, expected);
      await pipeline.cluster.settled();
      const now = await busiestPrimary(pipeline);

      const spooled = pipeline.web
        .lines()
        .filter((line) => line.msg === 'delivery' && line.outcome === 'spooled').length;
      console.log(
        `cluster, busiest primary ${how}: ${String(records.length)} deliveries, :${String(victim)} → ` +
          `:${String(now)}; spooled ${String(spooled)}; duplicates hook ` +
          `${String(tallies.hook.twice.count)}, archive ${String(tallies.archive.twice.count)}; ` +
          `after the disruption: ${resumeFigures(pipeline, startedAt, loadEnded)}`,
      );
      expect(records.filter((record) => record.status !== 200)).toEqual([]);
      for (const route of ROUTES) {
        expect({ route, missing: tallies[route].missing }).toEqual({
          route,
          missing: { count: 0, first: [] },
        });
      }
      if (movesPrimary) expect(now).not.toBe(victim);
      // The operator sees the lost node as the cluster does (only the kill is looked at).
      if (seen !== undefined) expect(seen).toMatchObject({ role: 'primary', state: 'failed' });
      for (const child of [pipeline.web, pipeline.worker]) {
        expect(child.child.exitCode).toBeNull();
        expect(child.child.signalCode).toBeNull();
      }
    });
  },
);
