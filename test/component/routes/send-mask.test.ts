import type { RedisClient } from '../../../src/redis/redis-client';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { personalValuesOf } from '../../../src/events/personal-fields';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { createSendShaper } from '../../../src/routes/send-shaper';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { FIXTURE_KINDS, fixtureEvent } from '../../helpers/fixture-events';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startRecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import { eventually, silentLogger } from './support/route-events';

function sendOf(send: string): Parameters<typeof createSendShaper>[0] {
  const file = `routes:\n  - name: r\n    send: ${send}\n    to: { file: { dir: /tmp/x } }\n`;
  return parseRoutesFile(file, {}).routes[0]?.send;
}

/** Every string in a JSON value (keys and values), unescaped. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, child]) => [key, ...stringsOf(child)]);
  }
  return [];
}

/** The personal values of a fixture found in a JSON body (or headers), without regard to case. */
function leaked(kind: (typeof FIXTURE_KINDS)[number], json: unknown): string[] {
  const texts = stringsOf(json).map((text) => text.toLowerCase());
  return personalValuesOf(fixtureEvent(kind)).filter((value) =>
    texts.some((text) => text.includes(value.toLowerCase())),
  );
}

describe('send: { mask: patron }', () => {
  it('the fixtures carry personal values to hide (so the checks below can fail)', () => {
    for (const kind of ['loan', 'request', 'user', 'notification'] as const) {
      const values = personalValuesOf(fixtureEvent(kind));
      expect(values.length).toBeGreaterThan(0);
      expect(leaked(kind, fixtureEvent(kind))).toEqual(values);
    }
  });

  it.each(FIXTURE_KINDS)('sends no personal value of a %s event, full or ids', async (kind) => {
    for (const send of ['{ mask: patron }', '{ shape: ids, mask: patron }']) {
      const body = (await createSendShaper(sendOf(send))(fixtureEvent(kind))) ?? '';
      expect(body).not.toBe('');
      expect(leaked(kind, JSON.parse(body))).toEqual([]);
      expect(JSON.parse(body)).toMatchObject({ id: fixtureEvent(kind).id });
    }
  });

  it('masks a value embedded in a link even when fields drops the field that holds it', async () => {
    const body = await createSendShaper(sendOf('{ fields: [item_loan.link], mask: patron }'))(
      fixtureEvent('loan'),
    );
    expect(JSON.parse(body ?? '')).toEqual({
      item_loan: { link: expect.stringContaining('/users/[masked]/loans') as unknown },
    });
  });

  it('runs before the transform: a transform cannot bring a personal value back', async () => {
    const body = await createSendShaper(
      sendOf(
        `{ mask: patron, transform: '{ "who": item_loan.user_id, "loan": item_loan.loan_id }' }`,
      ),
    )(fixtureEvent('loan'));
    expect(JSON.parse(body ?? '')).toEqual({ loan: '23400112340000561' });
  });
});

describe('send: { mask: patron } on a real route', () => {
  let receiver: RecordingHttpReceiver;
  let routing: Routing;
  let connection: RedisClient;

  beforeEach(async () => {
    receiver = await startRecordingHttpReceiver();
    connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
  });
  afterEach(async () => {
    await routing.close();
    await closeRedis(connection);
    for (const queue of routing.queues.values()) await obliterateQueue(queue.name);
    await receiver.close();
  });

  it('delivers every kind with no personal value in the body or the headers', async () => {
    const file = `routes:\n  - name: display\n    send: { mask: patron }\n    to: { http: { url: "${receiver.origin}/in" } }\n`;
    routing = startRouting({
      connection,
      routes: parseRoutesFile(file, {}).routes,
      redisUrl: TEST_REDIS_URL,
      queueName: uniqueQueueName('send-mask'),
      logger: silentLogger,
    });
    for (const kind of FIXTURE_KINDS) {
      const event = fixtureEvent(kind);
      await routing.fanOut(event, jobIdForEvent(event.id));
    }
    await eventually(() => receiver.requests.length === FIXTURE_KINDS.length, 'seven deliveries');
    for (const kind of FIXTURE_KINDS) {
      const id = fixtureEvent(kind).id;
      const request = receiver.requests.find((each) => each.headers['x-svc-event-id'] === id);
      expect(request).toBeDefined();
      expect(leaked(kind, `${JSON.stringify(request?.headers)} ${request?.body ?? ''}`)).toEqual(
        [],
      );
    }
  });
});
