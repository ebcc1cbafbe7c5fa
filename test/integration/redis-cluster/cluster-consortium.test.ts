import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { hashTagged } from '../../../src/redis/hash-tag';
import { keySlot } from '../../../src/redis/key-slot';
import { readRouteFigures } from '../../../src/routes/read-route-figures';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import type { DeliveryRecord } from '../redis-ha/support/send-deliveries';
import { archivedIds, receivedIds, tallyRoute } from '../pipeline/support/route-tally';
import {
  MEMBERS,
  QUEUE_NAME,
  membersDeliveries,
  startClusterPipeline,
} from './support/cluster-pipeline';
import type { ClusterPipeline } from './support/cluster-pipeline';

const PER_SECOND = 20;
const SECONDS = 10;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Each primary's key count (DBSIZE) and the deployment's queues on it, for the closing figures. */
async function keysPerPrimary(pipeline: ClusterPipeline): Promise<string> {
  const { cluster, queueNames } = pipeline;
  const primaries = (await cluster.roles()).filter((node) => node.role === 'primary');
  const parts = await Promise.all(
    primaries.map(async ({ port }) => {
      const client = cluster.nodeClient(port);
      try {
        const queues: string[] = [];
        for (const name of queueNames) {
          if ((await cluster.ownerOf(keySlot(`bull:${name}:id`))) === port) queues.push(name);
        }
        return `:${String(port)} ${String(await client.dbsize())} keys (${queues.join(', ') || 'no queue'})`;
      } finally {
        client.disconnect();
      }
    }),
  );
  return parts.join('; ');
}

/** CROSSSLOT refusals any node has counted since it started (INFO errorstats). */
async function crossSlotErrors(pipeline: ClusterPipeline): Promise<Record<number, string>> {
  const found: Record<number, string> = {};
  for (const { port } of pipeline.cluster.nodes) {
    const client = pipeline.cluster.nodeClient(port);
    try {
      const stats = String(await client.call('info', 'errorstats'));
      const line = stats.split('\n').find((one) => one.startsWith('errorstat_CROSSSLOT'));
      if (line !== undefined) found[port] = line.trim();
    } finally {
      client.disconnect();
    }
  }
  return found;
}

describe('a 3-member consortium with 2 routes on a 6-node Redis Cluster', () => {
  let pipeline: ClusterPipeline;
  beforeAll(async () => {
    pipeline = await startClusterPipeline();
  });
  afterAll(async () => {
    await pipeline.close();
  });

  it('spreads the queues over the primaries, each queue with all its keys on one slot', async () => {
    const { cluster, queueNames } = pipeline;
    const any = cluster.nodeClient(cluster.nodes[0]?.port ?? 0);
    try {
      const owners = new Map<string, number>();
      for (const name of queueNames) {
        // BullMQ's keys of the queue and ours beside it: one slot, the queue's.
        const keys = [
          `bull:${name}:wait`,
          `bull:${name}:id`,
          `${name}:history`,
          `${name}:rejected:index`,
        ];
        const slots = await Promise.all(keys.map((key) => any.call('cluster', 'keyslot', key)));
        expect(new Set(slots).size).toBe(1);
        owners.set(name, await cluster.ownerOf(Number(slots[0])));
      }
      const members = queueNames.filter((name) => name.includes('-inst-'));
      const routes = queueNames.filter((name) => name.includes('-route-'));
      expect(members).toHaveLength(3);
      expect(routes).toHaveLength(2);
      // At least two of the three primaries hold queues of this deployment.
      expect(
        new Set([...members, ...routes].map((name) => owners.get(name))).size,
      ).toBeGreaterThanOrEqual(2);
    } finally {
      any.disconnect();
    }
  });

  it("shows the cluster's nodes in the listener's /readyz: 3 primaries and 3 replicas, all ok", async () => {
    const answer = await fetch(`http://127.0.0.1:${String(pipeline.port)}/readyz`);
    const body = (await answer.json()) as {
      status: string;
      redisNodes: { node: string; role: string; state: string; slots: number }[];
    };
    expect(answer.status).toBe(200);
    expect(body.status).toBe('ready');
    const ports = pipeline.cluster.nodes.map(({ port }) => `127.0.0.1:${String(port)}`).sort();
    expect(body.redisNodes.map((one) => one.node)).toEqual(ports);
    expect(body.redisNodes.filter((one) => one.role === 'primary')).toHaveLength(3);
    expect(body.redisNodes.every((one) => one.state === 'ok')).toBe(true);
    const slots = body.redisNodes.reduce((sum, one) => sum + one.slots, 0);
    expect(slots).toBe(16384);
  });

  it("names in the metrics the primary that serves each queue: the listener its members' queues, the worker its routes' too", async () => {
    const { cluster, queueNames } = pipeline;
    const workerPort = Number(
      (await pipeline.worker.waitForLine((line) => line.msg === 'worker ready')).metricsPort,
    );
    const scrape = async (port: number): Promise<string> =>
      (await fetch(`http://127.0.0.1:${String(port)}/metrics`)).text();
    const [listener, worker] = await Promise.all([scrape(pipeline.port), scrape(workerPort)]);
    for (const name of queueNames.filter(
      (one) => one.includes('-inst-') || one.includes('-route-'),
    )) {
      const owner = await cluster.ownerOf(keySlot(`bull:${name}:id`));
      const series = `svcws_queue_redis_node{queue="${name}",node="127.0.0.1:${String(owner)}"} 1`;
      expect(worker).toContain(series);
      if (name.includes('-inst-')) expect(listener).toContain(series);
    }
  });

  it('answers every delivery 200 and delivers each event once to each route, with no CROSSSLOT anywhere', async () => {
    const deliveries = membersDeliveries(pipeline, PER_SECOND, '9');
    await sleep(SECONDS * 1000);
    const records: DeliveryRecord[] = await deliveries.stop();
    expect(records.filter((record) => record.status !== 200)).toEqual([]);
    expect(records.length).toBeGreaterThan(MEMBERS.length * PER_SECOND * SECONDS * 0.8);
    const expected = new Set(records.map((record) => record.id));

    const deadline = Date.now() + 60_000;
    const tallies = async () => ({
      hook: tallyRoute(receivedIds(pipeline.receiver, '/hook'), expected),
      archive: tallyRoute(await archivedIds(pipeline.archiveDir), expected),
    });
    let now = await tallies();
    while ((now.hook.missing.count > 0 || now.archive.missing.count > 0) && Date.now() < deadline) {
      await sleep(500);
      now = await tallies();
    }
    for (const route of ['hook', 'archive'] as const) {
      expect({ route, missing: now[route].missing, twice: now[route].twice }).toEqual({
        route,
        missing: { count: 0, first: [] },
        twice: { count: 0, first: [] },
      });
    }
    expect(await crossSlotErrors(pipeline)).toEqual({});
    console.log(
      `consortium on the cluster, after ${String(records.length)} deliveries: ${await keysPerPrimary(pipeline)}`,
    );
    for (const child of [pipeline.web, pipeline.worker]) {
      const text = child
        .lines()
        .map((line) => JSON.stringify(line))
        .join('\n');
      expect(text).not.toMatch(/CROSSSLOT|same slots allocation group/);
      expect(child.child.exitCode).toBeNull();
    }
  });

  it('keeps the route figures on the cluster: each route counts every delivery', async () => {
    // The figures are written every 250 ms in one pipeline per route (route-figures.ts).
    const cluster = new Redis.Cluster(
      pipeline.cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port })),
    );
    try {
      const delivered = receivedIds(pipeline.receiver, '/hook').length;
      const counted = async (route: string): Promise<number> => {
        const queue = new Queue(routeQueueName(hashTagged(QUEUE_NAME), route), {
          connection: cluster,
        });
        try {
          return (await readRouteFigures(cluster, queue)).lastHour.delivered;
        } finally {
          await queue.close();
        }
      };
      const deadline = Date.now() + 10_000;
      while ((await counted('hook')) < delivered && Date.now() < deadline) await sleep(250);
      expect(await counted('hook')).toBe(delivered);
      expect(await counted('archive')).toBe(delivered);
    } finally {
      cluster.disconnect();
    }
  });
});
