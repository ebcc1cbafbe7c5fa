import type { RedisClient } from '../../../src/redis/redis-client';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { StartupFileError } from '../../../src/startup/startup-file-error';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { startRecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import { eventually, routeEvent, silentLogger } from './support/route-events';

function problemsOf(route: string): readonly string[] {
  try {
    parseRoutesFile(`routes:\n  - name: r\n${route}`, {});
  } catch (error) {
    if (error instanceof StartupFileError) return error.problems;
    throw error;
  }
  throw new Error('accepted');
}

describe('http destination: templates of event fields in the URL path and headers', () => {
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

  it('fills the path and headers from the event, each value kept inside its segment', async () => {
    const file = `routes:
  - name: patrons
    to:
      http:
        url: "\${URL}/patrons/{item_loan.user_id}/loans/{item_loan.loan_id}?from={institution}"
        headers: { x-library: "{item_loan.library.value}", x-missing: "{item_loan.nothing}" }
`;
    routing = startRouting({
      connection,
      routes: parseRoutesFile(file, { URL: receiver.origin }).routes,
      redisUrl: TEST_REDIS_URL,
      queueName: uniqueQueueName('http-templates'),
      logger: silentLogger,
    });
    const event = routeEvent({
      item_loan: { loan_id: '234/../x', user_id: 'u-7', library: { value: 'MAIN\r\nx-evil: 1' } },
    });
    await routing.fanOut(event, jobIdForEvent(event.id));
    await eventually(() => receiver.requests.length === 1, 'the delivery');
    const [request] = receiver.requests;
    expect(request?.path).toBe('/patrons/u-7/loans/234____x?from=01ABC_INST');
    expect(request?.headers['x-library']).toBe('MAIN__x-evil__1');
    expect(request?.headers['x-missing']).toBe('none');
    expect(request?.headers).not.toHaveProperty('x-evil');
  });
});

describe('http templates checked at start-up', () => {
  it('refuses a personal field in the URL or a header of a masked route, naming it', () => {
    expect(
      problemsOf(`    send: { mask: patron }
    to: { http: { url: "https://x.org/patrons/{item_loan.user_id}", headers: { x-who: "{webhook_user.user.contact_info.email.email_address}" } } }
`),
    ).toEqual([
      'route "r": to.http.url: uses the personal field item_loan.user_id while send.mask is patron',
      'route "r": to.http.headers.x-who: uses the personal field webhook_user.user.contact_info.email.email_address while send.mask is patron',
    ]);
  });

  it('accepts personal fields without a mask, and other fields with one', () => {
    expect(() =>
      parseRoutesFile(
        `routes:
  - name: a
    to: { http: { url: "https://x.org/patrons/{item_loan.user_id}" } }
  - name: b
    send: { mask: patron }
    to: { http: { url: "https://x.org/loans/{item_loan.loan_id}", headers: { x-lib: "{item_loan.library.value}" } } }
`,
        {},
      ),
    ).not.toThrow();
  });

  it('refuses a template in the host', () => {
    expect(
      problemsOf('    to: { http: { url: "https://{institution}.example.org/in" } }\n'),
    ).toEqual([
      'route "r": to.http.url: templates ({field}) only in the path or query: the scheme, user, ' +
        'host and port must be written out in plain characters, ending with / ? or # before the first template',
    ]);
  });
});
