import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnWorker } from '../worker/support/child-process';
import type { ChildWorker } from '../worker/support/child-process';
import { uniqueQueueName } from '../../helpers/redis';
import { jobsOn } from './support/jobs-on';
import { MASTER_NAME, startRedisHa, waitFor } from './support/redis-ha-cluster';
import type { RedisHa } from './support/redis-ha-cluster';
import { startDeliveries } from './support/send-deliveries';
import type { DeliveryRecord } from './support/send-deliveries';

const SECRET = 'ha-test-secret-0123456789';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let ha: RedisHa | undefined;
const children: ChildWorker[] = [];
let recordsDir: string | undefined;

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.child.exitCode === null && child.child.signalCode === null) {
      child.child.kill('SIGKILL');
      await child.exited();
    }
  }
  await ha?.stop();
  ha = undefined;
  if (recordsDir !== undefined) await rm(recordsDir, { recursive: true, force: true });
});

function throughSentinel(cluster: RedisHa): Record<string, string> {
  return { REDIS_SENTINELS: cluster.sentinelsEnv, REDIS_SENTINEL_NAME: MASTER_NAME };
}

/** src/bin/web.ts as its own process, through Sentinel; resolves with its port once ready. */
async function startWeb(env: Record<string, string>): Promise<number> {
  const web = spawnWorker('src/bin/web.ts', { PORT: '0', WEBHOOK_SECRET: SECRET, ...env });
  children.push(web);
  const ready = await web.waitForLine((line) => line.msg === 'listener ready');
  return Number(ready.port);
}

/**
 * A deadline for the failover, not its expected time: Sentinel here decides in about 1 s
 * (down-after 1 s), but on a starved machine its first attempt can time out (failover-timeout
 * 3 s) and the next start later — 20.5 s was seen in a fresh container beside other work.
 */
const FAILOVER_WITHIN_MS = 60_000;

/** A delivery as a failure message names it: its id, its status, and how it failed. */
const described = (record: DeliveryRecord): string =>
  `${record.id}: ${String(record.status)}${record.failure === undefined ? '' : ` (${record.failure})`}`;

function summary(label: string, records: DeliveryRecord[], extra: Record<string, unknown>): void {
  const by = (status: number): number => records.filter((r) => r.status === status).length;
  const other = records.filter((r) => ![0, 200, 503].includes(r.status)).map(described);
  const figures = {
    sent: records.length,
    ok200: by(200),
    s503: by(503),
    failed: by(0),
    ...(other.length === 0 ? {} : { other }),
    ...extra,
  };
  process.stdout.write(`[redis-ha] ${label}: ${JSON.stringify(figures)}\n`);
}

describe('Redis through Sentinel', () => {
  it('with REDIS_ACK_REPLICAS=1, a SIGKILLed primary is 503s while it fails over, no acknowledged event lost, and the worker resumes', async () => {
    ha = await startRedisHa({ replicas: 2 });
    const queueName = uniqueQueueName('ha');
    const env = { ...throughSentinel(ha), QUEUE_NAME: queueName };
    const port = await startWeb({ ...env, REDIS_ACK_REPLICAS: '1' });
    recordsDir = await mkdtemp(join(tmpdir(), 'ha-records-'));
    const worker = spawnWorker('src/bin/worker.ts', {
      ...env,
      SVC_BASE_URL: 'http://127.0.0.1:1',
      SVC_API_KEY: 'unused-no-handler-calls-the-api',
      WORKER_METRICS_PORT: '0',
      RECORDS_DIR: recordsDir,
    });
    children.push(worker);
    await worker.waitForLine((line) => line.msg === 'worker ready');

    const load = startDeliveries({ port, secret: SECRET, perSecond: 100, idPrefix: '91' });
    await sleep(3000);
    const killedAt = Date.now();
    ha.killPrimary();
    // Deliver on until 3 s of nothing but 200s follow the last refusal.
    await waitFor(
      async () => {
        const after = load.answered().filter((r) => r.answeredAt >= killedAt);
        const refused = after.filter((r) => r.status !== 200);
        const last = Math.max(...refused.map((r) => r.answeredAt));
        return refused.length > 0 && Date.now() - last > 3000;
      },
      'the listener to answer 200 again after the failover',
      FAILOVER_WITHIN_MS + 3000,
    ).catch(() => undefined);
    const records = await load.stop();

    const refused = records.filter((r) => r.status !== 200);
    const firstRefused = Math.min(...refused.map((r) => r.answeredAt));
    const lastRefused = Math.max(...refused.map((r) => r.answeredAt));
    const newPrimary = await ha.currentPrimary();
    const acked = records.filter((r) => r.status === 200).map((r) => r.id);
    const present = await jobsOn(newPrimary, queueName, acked);
    summary('ack replicas 1, primary SIGKILLed', records, {
      failover503WindowMs: lastRefused - firstRefused,
      killToLast503Ms: lastRefused - killedAt,
      lostAcked: present.missing.length,
    });

    expect(newPrimary.port).not.toBe(ha.primary.port);
    // Refusals are 503s (never a network error, never a 5xx other than 503), all after the kill.
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.filter((r) => r.status !== 503).map(described)).toEqual([]);
    expect(firstRefused).toBeGreaterThanOrEqual(killedAt);
    expect(lastRefused - killedAt).toBeLessThan(FAILOVER_WITHIN_MS);
    expect(records.some((r) => r.status === 200 && r.sentAt > lastRefused)).toBe(true);
    // Every 200 is on the new primary.
    expect(present.missing).toEqual([]);

    // The worker, through Sentinel too, takes up the events acknowledged after the failover.
    const ackedAfter = records
      .filter((r) => r.status === 200 && r.sentAt > lastRefused)
      .map((r) => r.id);
    await waitFor(
      async () =>
        (await jobsOn(newPrimary, queueName, ackedAfter)).completed.length === ackedAfter.length,
      'the worker to complete the events acknowledged after the failover',
    );
  });

  it('with replication held back, REDIS_ACK_REPLICAS=0 loses acknowledged events; =1 answers 503 for them instead', async () => {
    ha = await startRedisHa({ replicas: 1, proxyPrimary: true });
    const queueName = uniqueQueueName('ha-held');
    const env = { ...throughSentinel(ha), QUEUE_NAME: queueName };
    const [portNoAck, portAck] = await Promise.all([
      startWeb({ ...env, REDIS_ACK_REPLICAS: '0' }),
      startWeb({ ...env, REDIS_ACK_REPLICAS: '1' }),
    ]);
    const noAck = startDeliveries({
      port: portNoAck,
      secret: SECRET,
      perSecond: 50,
      idPrefix: '80',
    });
    const ack = startDeliveries({ port: portAck, secret: SECRET, perSecond: 50, idPrefix: '81' });
    await sleep(1500);
    // The replica stays connected but receives nothing more: what the primary acknowledges from
    // now on exists on the primary alone.
    const heldAt = Date.now();
    ha.primaryProxy?.holdReplication();
    await sleep(1500);
    const killedAt = Date.now();
    ha.killPrimary();
    await sleep(500);
    const [noAckRecords, ackRecords] = await Promise.all([noAck.stop(), ack.stop()]);
    const oldPort = ha.primary.port;
    await waitFor(async () => (await ha?.currentPrimary())?.port !== oldPort, 'the failover');
    const newPrimary = await ha.currentPrimary();

    const ackedIds = (records: DeliveryRecord[]): string[] =>
      records.filter((r) => r.status === 200).map((r) => r.id);
    const lostNoAck = (await jobsOn(newPrimary, queueName, ackedIds(noAckRecords))).missing;
    const lostAck = (await jobsOn(newPrimary, queueName, ackedIds(ackRecords))).missing;
    // Sent after the hold began: their add reaches the primary alone.
    const sentWhileHeld = (records: DeliveryRecord[]): DeliveryRecord[] =>
      records.filter((r) => r.sentAt >= heldAt && r.sentAt < killedAt);
    const noAckHeld = sentWhileHeld(noAckRecords);
    const ackHeld = sentWhileHeld(ackRecords);
    summary('ack replicas 0, replication held 1.5 s, primary SIGKILLed', noAckRecords, {
      sentWhileHeld: noAckHeld.length,
      ofThoseAcked200: noAckHeld.filter((r) => r.status === 200).length,
      lostAcked: lostNoAck.length,
    });
    summary('ack replicas 1, same run', ackRecords, {
      sentWhileHeld: ackHeld.length,
      ofThoseAcked200: ackHeld.filter((r) => r.status === 200).length,
      lostAcked: lostAck.length,
    });

    // REDIS_ACK_REPLICAS=1: nothing the replica lacked was acknowledged, and no 200 was lost.
    expect(ackHeld.length).toBeGreaterThan(0);
    expect(ackHeld.filter((r) => r.status === 200)).toEqual([]);
    expect(lostAck).toEqual([]);
    // REDIS_ACK_REPLICAS=0: every 200 for a delivery sent while replication was held is lost.
    const noAckHeldAcked = noAckHeld.filter((r) => r.status === 200).map((r) => r.id);
    expect(noAckHeldAcked.length).toBeGreaterThan(0);
    expect(lostNoAck).toEqual(expect.arrayContaining(noAckHeldAcked));
  });
});
