import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RedisClient } from '../../../src/redis/redis-client';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { productUserAgent } from '../../../src/routes/product-user-agent';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { startRecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { eventually, routeEvent, silentLogger } from './support/route-events';

const { version } = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8'),
) as { version: string };

describe('routing: the User-Agent of HTTP deliveries', () => {
  let receiver: RecordingHttpReceiver;
  let connection: RedisClient;
  let routing: Routing | undefined;

  beforeEach(async () => {
    receiver = await startRecordingHttpReceiver();
    connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
  });
  afterEach(async () => {
    await routing?.close();
    for (const queue of routing?.queues.values() ?? []) await obliterateQueue(queue.name);
    routing = undefined;
    await closeRedis(connection);
    await receiver.close();
  });

  async function deliverOne(yaml: string): Promise<string | undefined> {
    const { routes } = parseRoutesFile(yaml, { HOOK: `${receiver.origin}/hook` });
    routing = startRouting({
      connection,
      routes,
      redisUrl: TEST_REDIS_URL,
      queueName: uniqueQueueName('user-agent'),
      logger: silentLogger,
      userAgent: productUserAgent(),
    });
    const event = routeEvent();
    await routing.fanOut(event, jobIdForEvent(event.id));
    await eventually(() => receiver.requests.length === 1, 'the delivery');
    return receiver.requests[0]?.headers['user-agent'];
  }

  it('sends svcws-listener/<version of package.json>', async () => {
    expect(await deliverOne('routes: [{ name: hook, to: { http: { url: "${HOOK}" } } }]')).toBe(
      `svcws-listener/${version}`,
    );
  });

  it("keeps a route's own User-Agent header, whatever its case, and sends it once", async () => {
    const agent = await deliverOne(
      'routes: [{ name: hook, to: { http: { url: "${HOOK}", headers: { User-Agent: mine/1 } } } }]',
    );
    expect(agent).toBe('mine/1');
  });
});

describe('productUserAgent', () => {
  it("finds the product's package.json from a build folder elsewhere in the repository", () => {
    // The bench compiles src/ to .tmp/bench-build/src/routes: two folders up is no package.json.
    const buildFolder = join(__dirname, '..', '..', '..', '.tmp', 'bench-build', 'src', 'routes');
    expect(productUserAgent(buildFolder)).toBe(`svcws-listener/${version}`);
  });

  it('says unknown where no package.json of the product is found', () => {
    expect(productUserAgent('/')).toBe('svcws-listener/unknown');
  });
});
