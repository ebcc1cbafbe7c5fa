import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createDestination } from '../../../src/routes/create-destination';
import { DeliveryError } from '../../../src/routes/delivery-error';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { previewDelivery } from '../../../src/routes/preview-delivery';
import { captureLogger } from '../../helpers/capture-logger';
import { TEST_REDIS_URL } from '../../helpers/redis';
import { eventually, routeEvent } from './support/route-events';

const SECRET = `s3cret-${randomBytes(10).toString('hex')}`;

/** One route per destination, each with the secret where its failures quote it. */
const ROUTES = `
routes:
  - { name: http, to: { http: { url: "http://127.0.0.1:9/in/\${SECRET}", timeoutMs: 2000 } } }
  - { name: amqp, to: { amqp: { url: "amqp://\${SECRET}:pw@127.0.0.1:9/vh", exchange: ex, timeoutMs: 500 } } }
  - { name: stream, to: { redisStream: { stream: "events-\${SECRET}", timeoutMs: 500 } } }
  - { name: file, to: { file: { dir: "\${DIR}/\${SECRET}" } } }
`;

describe("every destination masks the routes file's secrets in its target and its failures", () => {
  let dir: string;
  let redis: Redis;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-destination-secrets-'));
    // A file where the archive's directory should be: the directory cannot be created.
    await writeFile(join(dir, 'not-a-dir'), '');
    // A string where the stream should be: XADD is refused (WRONGTYPE).
    redis = new Redis(TEST_REDIS_URL);
    await redis.set(`events-${SECRET}`, 'not a stream', 'EX', 60);
  });
  afterAll(async () => {
    await redis.del(`events-${SECRET}`);
    redis.disconnect();
    await rm(dir, { recursive: true, force: true });
  });

  it.each(['http', 'amqp', 'stream', 'file'])('%s: target, failure and preview', async (name) => {
    const log = captureLogger();
    const { routes, redactSecrets } = parseRoutesFile(ROUTES, {
      SECRET,
      DIR: join(dir, 'not-a-dir'),
    });
    const route = routes.find((one) => one.name === name);
    if (route === undefined) throw new Error(`no route ${name}`);
    const destination = createDestination(route.to, {
      route: name,
      logger: log.logger,
      redisUrl: TEST_REDIS_URL,
      redactSecrets,
    });

    const failure = await destination.deliver(routeEvent()).then(
      () => new Error('delivered'),
      (error: unknown) => error,
    );
    // The amqp client logs its connection errors itself, with the target.
    if (name === 'amqp')
      await eventually(() => log.text().includes('amqp connection error'), 'log');
    await destination.close();
    const preview = previewDelivery(route, routeEvent(), {
      redisUrl: TEST_REDIS_URL,
      redactSecrets,
    });

    expect(failure).toBeInstanceOf(DeliveryError);
    const message = failure instanceof Error ? failure.message : '';
    expect(message).toContain('***');
    expect(destination.target).toContain('***');
    const shown = [message, destination.target, JSON.stringify(preview), log.text()].join('\n');
    expect(shown).not.toContain(SECRET);
  });
});
