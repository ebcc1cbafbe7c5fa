import type { DeliveryRecord } from '../redis-ha/support/send-deliveries';
import { archivedIds, receivedIds, tallyRoute } from '../pipeline/support/route-tally';
import { ROUTES, membersDeliveries, startClusterPipeline } from './support/cluster-pipeline';
import type { ClusterPipeline } from './support/cluster-pipeline';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A cluster reached over TLS as a managed service is (REDIS_CLUSTER_TLS=on): the seed nodes and
 * the nodes they announce are names, and the certificate names `localhost` only, so a client
 * that connected to an address instead would be refused by its own certificate check.
 */
describe('a Redis Cluster over TLS, its certificate for the nodes’ name alone', () => {
  let pipeline: ClusterPipeline | undefined;
  beforeAll(async () => {
    pipeline = await startClusterPipeline({}, { tls: true });
  });
  afterAll(async () => {
    await pipeline?.close();
  });

  it('takes every delivery into the queue and delivers each event once to each route', async () => {
    if (pipeline === undefined) throw new Error('the pipeline did not start');
    const started = pipeline;
    const deliveries = membersDeliveries(started, 10, 't');
    await sleep(3000);
    const records: DeliveryRecord[] = await deliveries.stop();
    const expected = new Set(records.map((record) => record.id));

    expect(records.filter((record) => record.status !== 200)).toEqual([]);
    expect(records.length).toBeGreaterThan(0);
    const deadline = Date.now() + 60_000;
    const tallies = async () => ({
      hook: tallyRoute(receivedIds(started.receiver, '/hook'), expected),
      archive: tallyRoute(await archivedIds(started.archiveDir), expected),
    });
    let now = await tallies();
    while (ROUTES.some((route) => now[route].missing.count > 0) && Date.now() < deadline) {
      await sleep(500);
      now = await tallies();
    }
    for (const route of ROUTES) {
      expect({ route, missing: now[route].missing, twice: now[route].twice }).toEqual({
        route,
        missing: { count: 0, first: [] },
        twice: { count: 0, first: [] },
      });
    }
  });

  it("lists the cluster's six nodes, all ok, in the listener's /readyz", async () => {
    const answer = await fetch(`http://127.0.0.1:${String(pipeline?.port)}/readyz`);
    const body = (await answer.json()) as { redisNodes?: { state: string }[] };

    expect(answer.status).toBe(200);
    expect(body.redisNodes?.map((node) => node.state)).toEqual(Array(6).fill('ok'));
  });
});
