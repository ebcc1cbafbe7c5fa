import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisClient } from '../../../src/redis/redis-client';
import { runCli } from '../../../src/cli/run-cli';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { DeliveryError } from '../../../src/routes/delivery-error';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { StartupFileError } from '../../../src/startup/startup-file-error';
import type { Route } from '../../../src/routes/routes-file';
import { createSendShaper } from '../../../src/routes/send-shaper';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { FIXTURE_KINDS, fixtureEvent } from '../../helpers/fixture-events';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startRecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import { captureIo } from '../cli/cli-io-capture';
import { eventually, routeEvent, silentLogger } from './support/route-events';

/** One route on a file destination whose `send:` is the given YAML flow mapping. */
function routeWith(send: string, to = '{ file: { dir: /tmp/x } }'): Route {
  const file = `routes:\n  - name: r\n    send: ${send}\n    to: ${to}\n`;
  const route = parseRoutesFile(file, {}).routes[0];
  if (route === undefined) throw new Error('no route');
  return route;
}

async function shaped(send: string, event = fixtureEvent('loan')): Promise<unknown> {
  const body = await createSendShaper(routeWith(send).send)(event);
  return body === undefined ? undefined : JSON.parse(body);
}

describe('send: what a route sends of each event', () => {
  it('sends the canonical event unchanged without send: or with shape: full', async () => {
    expect(await createSendShaper(undefined)(fixtureEvent('bib'))).toBeUndefined();
    expect(await shaped('{ shape: full }')).toBeUndefined();
  });

  it('ids: the envelope and the subject identifiers only, for each of the seven kinds', async () => {
    const envelope = (kind: (typeof FIXTURE_KINDS)[number]): Record<string, unknown> => {
      const { id, action, event, institution, time } = fixtureEvent(kind);
      return { id, action, ...(event ? { event } : {}), institution, time };
    };
    const ids = await Promise.all(
      FIXTURE_KINDS.map((kind) => shaped('{ shape: ids }', fixtureEvent(kind))),
    );
    expect(ids).toEqual([
      {
        ...envelope('job_end'),
        job_instance: { id: '5871043560000561', job_info: { id: 'S7781' } },
      },
      { ...envelope('loan'), item_loan: { loan_id: '23400112340000561', user_id: 'u-42' } },
      {
        ...envelope('request'),
        user_request: {
          request_id: '81234560000561',
          user_primary_id: 'S1004217',
          mms_id: '991234570000561',
          item_id: '231234570000561',
        },
      },
      { ...envelope('bib'), bib: { mms_id: '991234580000561' } },
      {
        ...envelope('item'),
        item: {
          bib_data: { mms_id: '991234560000561' },
          holding_data: { holding_id: '221234560000561' },
          item_data: { pid: '231234560000561' },
        },
      },
      { ...envelope('user'), webhook_user: { user: { primary_id: 'S1004217' } } },
      { ...envelope('notification'), notification_data: { user_id: 'S1004217' } },
    ]);
  });

  it('fields keeps only its paths (lists walked), then drop removes its paths', async () => {
    expect(
      await shaped('{ fields: [id, action, item_loan.loan_id, item_loan.note.content] }'),
    ).toEqual({
      id: '77310020000561',
      action: 'loan',
      item_loan: { loan_id: '23400112340000561', note: [{ content: 'Überfällig? Nein.' }] },
    });
    const dropped = (await shaped(
      '{ drop: [item_loan.user_id, item_loan.link, institution] }',
    )) as Record<string, Record<string, unknown>>;
    expect(dropped.item_loan).not.toHaveProperty('user_id');
    expect(dropped.item_loan).not.toHaveProperty('link');
    expect(dropped).not.toHaveProperty('institution');
    expect(dropped).not.toHaveProperty('meta');
    expect(dropped.item_loan?.loan_id).toBe('23400112340000561');
    const user = (await shaped(
      '{ drop: [webhook_user.user.contact_info.email.email_address] }',
      fixtureEvent('user'),
    )) as { webhook_user: { user: { contact_info: { email: Record<string, unknown>[] } } } };
    expect(user.webhook_user.user.contact_info.email[0]).toEqual(
      expect.not.objectContaining({ email_address: expect.anything() as unknown }),
    );
    expect(JSON.stringify(user)).not.toContain('amara@example.org');
    expect(
      await shaped('{ fields: [item_loan.loan_id, item_loan.user_id], drop: [item_loan.user_id] }'),
    ).toEqual({
      item_loan: { loan_id: '23400112340000561' },
    });
  });

  it('transform: the last step, on what the steps before made', async () => {
    expect(
      await shaped(
        `{ transform: '{ "text": "Loan " & item_loan.loan_id & " at " & item_loan.library.value }' }`,
      ),
    ).toEqual({
      text: 'Loan 23400112340000561 at MAIN',
    });
    expect(await shaped(`{ shape: ids, transform: '$keys($)' }`)).toEqual([
      'id',
      'action',
      'event',
      'institution',
      'time',
      'item_loan',
    ]);
  });

  it.each([
    [
      'a slow expression',
      `'($f := function($n) { $n > 0 ? $f($n - 1) + $f($n - 1) : 1 }; $f(40))'`,
      /transform failed: D1012 Evaluation timeout after 250 milliseconds/,
    ],
    [
      'a huge output',
      `'$pad("x", 2000000)'`,
      /transform failed: the output is \d+ characters, over the limit of 1000000/,
    ],
    ['a huge sequence', `'[1..5000000]'`, /transform failed: D2015/],
    ['no output', `'nothing.here'`, /transform failed: the expression produced nothing/],
    [
      'a function as output',
      `'function($x) { $x }'`,
      /transform failed: the output is a function, not JSON/,
    ],
    [
      'an error quoting an event value',
      `'$number(item_loan.title)'`,
      /^transform failed: D3030 at \d+ \(a JSONata error code\)$/,
    ],
  ])(
    'transform: %s fails the delivery, not retryable, with the reason',
    async (_case, expression, reason) => {
      const shaper = createSendShaper(routeWith(`{ transform: ${expression} }`).send);
      const started = performance.now();
      const error: unknown = await shaper(fixtureEvent('loan')).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(DeliveryError);
      expect((error as DeliveryError).retryable).toBe(false);
      expect((error as DeliveryError).message).toMatch(reason);
      expect((error as DeliveryError).message).not.toContain('Misérables');
      expect(performance.now() - started).toBeLessThan(3000);
    },
  );

  it('refuses at start-up a transform that does not parse, an unknown shape or a bad path', () => {
    const problems = (send: string): readonly string[] => {
      try {
        routeWith(send);
      } catch (error) {
        if (error instanceof StartupFileError) return error.problems;
        throw error;
      }
      throw new Error('accepted');
    };
    expect(problems(`{ transform: '{ "a": ' }`)).toEqual([
      'route "r": send.transform: not a JSONata expression (S0203 at 7)',
    ]);
    expect(problems('{ shape: thin }')).toEqual(['route "r": send.shape: one of full, ids']);
    expect(problems('{ fields: ["a..b"] }')[0]).toMatch(
      /^route "r": send\.fields\.0: a path of the event/,
    );
    expect(problems('{ keep: [a] }')).toEqual(['route "r": send: unknown field keep']);
  });
});

describe('routes test <name> shows what would be sent after filters and shaping', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-send-cli-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the shaped body, and a transform failure with exit 1', async () => {
    const file = join(dir, 'routes.yaml');
    await writeFile(
      file,
      `routes:
  - name: chat
    match: { where: { item_loan.library.value: [MAIN] } }
    send: { shape: ids, transform: '{ "text": "Loan " & item_loan.loan_id }' }
    to: { http: { url: "http://127.0.0.1:9/in" } }
  - name: broken
    send: { transform: '$number(item_loan.title)' }
    to: { http: { url: "http://127.0.0.1:9/in" } }
`,
    );
    const env = { ROUTES_FILE: file, REDIS_URL: TEST_REDIS_URL, QUEUE_NAME: 'send-cli' };
    const fixture = join(__dirname, '../../fixtures/events/loan-created.json');
    let io = captureIo(env);
    expect(await runCli(['routes', 'test', 'chat', '--file', fixture], io)).toBe(0);
    expect(io.stdout()).toContain('body: {"text":"Loan 23400112340000561"}');
    expect(io.stdout()).toContain('idempotency-key: 77310020000561');
    io = captureIo(env);
    expect(await runCli(['routes', 'test', 'chat', '--sample', 'bib'], io)).toBe(1);
    io = captureIo(env);
    expect(await runCli(['routes', 'test', 'broken', '--file', fixture], io)).toBe(1);
    expect(io.stdout()).toContain('✗ send: transform failed: D3030');
  });
});

describe('send: in the route worker, on a real HTTP receiver', () => {
  let receiver: RecordingHttpReceiver;
  let routing: Routing;
  let connection: RedisClient;
  let queueName: string;

  beforeEach(async () => {
    receiver = await startRecordingHttpReceiver();
    queueName = uniqueQueueName('send-shaping');
    connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
  });
  afterEach(async () => {
    await routing.close();
    await closeRedis(connection);
    for (const queue of routing.queues.values()) await obliterateQueue(queue.name);
    await receiver.close();
  });

  function start(send: string): void {
    const to = `{ http: { url: "${receiver.origin}/in" } }`;
    routing = startRouting({
      connection,
      routes: [{ ...routeWith(send, to), retry: { attempts: 5, backoffMs: 50 } }],
      redisUrl: TEST_REDIS_URL,
      queueName,
      logger: silentLogger,
    });
  }

  it('posts the shaped body with the original event id as idempotency key', async () => {
    start(`{ transform: '{ "text": "Loan " & item_loan.loan_id }' }`);
    const event = routeEvent();
    await routing.fanOut(event, jobIdForEvent(event.id));
    await eventually(() => receiver.requests.length === 1, 'the delivery');
    const [request] = receiver.requests;
    expect(JSON.parse(request?.body ?? '')).toEqual({ text: 'Loan 234001' });
    expect(request?.headers['idempotency-key']).toBe(event.id);
    expect(request?.headers['x-svc-event-id']).toBe(event.id);
  });

  it('a transform that runs out of time fails that delivery at once, and the next is delivered', async () => {
    start(
      `{ transform: 'item_loan.loan_id = "slow" ? ($f := function($n) { $n > 0 ? $f($n - 1) + $f($n - 1) : 1 }; $f(40)) : { "id": id }' }`,
    );
    const slow = routeEvent({ item_loan: { loan_id: 'slow' } });
    const next = routeEvent();
    await routing.fanOut(slow, jobIdForEvent(slow.id));
    const queue = routing.queues.get('r');
    await eventually(async () => (await queue?.getFailedCount()) === 1, 'the failed delivery');
    const [failed] = (await queue?.getFailed()) ?? [];
    expect(failed?.attemptsMade).toBe(1);
    expect(failed?.failedReason).toContain('transform failed: D1012');
    await routing.fanOut(next, jobIdForEvent(next.id));
    await eventually(() => receiver.requests.length === 1, 'the next delivery');
    expect(JSON.parse(receiver.requests[0]?.body ?? '')).toEqual({ id: next.id });
  });
});
