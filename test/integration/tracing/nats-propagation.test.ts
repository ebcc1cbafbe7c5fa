import { randomUUID } from 'node:crypto';
import { connect } from 'nats';
import type { NatsConnection } from 'nats';
import { createNatsDestination } from '../../../src/routes/destinations/nats';
import { inSpan } from '../../../src/tracing/in-span';
import { routeEvent, silentLogger } from '../../component/routes/support/route-events';
import { captureTraces } from '../../helpers/trace-capture';
import { TEST_NATS_URL, TEST_REDIS_URL } from '../../helpers/test-services';

const capture = captureTraces();

afterAll(() => capture.close());

describe('a NATS delivery with tracing on', () => {
  let nc: NatsConnection;
  let stream: string;

  beforeEach(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    stream = `TEST_${randomUUID().slice(0, 8)}`;
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
  });
  afterEach(async () => {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
  });

  it("carries the delivering span's traceparent in the message headers", async () => {
    const destination = createNatsDestination(
      { servers: TEST_NATS_URL, subject: `${stream}.{action}`, timeoutMs: 3000 },
      { route: 'nats-route', logger: silentLogger, redisUrl: TEST_REDIS_URL },
    );
    try {
      await inSpan('deliver nats-route', { attributes: {} }, () =>
        destination.deliver(routeEvent()),
      );
    } finally {
      await destination.close();
    }
    const span = capture.one('deliver nats-route');
    const { traceId, spanId } = span.spanContext();
    const stored = await (await nc.jetstreamManager()).streams.getMessage(stream, { seq: 1 });
    expect(stored.header.get('traceparent')).toBe(`00-${traceId}-${spanId}-01`);
  });
});
