import { createHmac, randomBytes } from 'node:crypto';
import type { RedisClient } from '../../../src/redis/redis-client';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
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

describe('http destination signing', () => {
  let receiver: RecordingHttpReceiver;
  let routing: Routing | undefined;
  let connection: RedisClient;

  beforeEach(async () => {
    receiver = await startRecordingHttpReceiver();
    connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
  });
  afterEach(async () => {
    await routing?.close();
    await closeRedis(connection);
    for (const queue of routing?.queues.values() ?? []) await obliterateQueue(queue.name);
    await receiver.close();
  });

  async function deliverOne(http: string, env: Record<string, string>) {
    const file = `routes:\n  - name: signed\n    send: { fields: [id, item_loan.loan_id] }\n    to: { http: ${http} }\n`;
    routing = startRouting({
      connection,
      routes: parseRoutesFile(file, { ...env, URL: `${receiver.origin}/in` }).routes,
      redisUrl: TEST_REDIS_URL,
      queueName: uniqueQueueName('http-signing'),
      logger: silentLogger,
    });
    const event = routeEvent();
    await routing.fanOut(event, jobIdForEvent(event.id));
    await eventually(() => receiver.requests.length === 1, 'the delivery');
    const request = receiver.requests[0];
    if (request === undefined) throw new Error('no request');
    return { event, request };
  }

  it('signs as Standard Webhooks: the published verifier accepts it, and refuses it tampered', async () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const { event, request } = await deliverOne(
      '{ url: "${URL}", secret: "${S}", signing: standard-webhooks }',
      { S: secret },
    );
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    expect(headers['webhook-id']).toBe(event.id);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(request.body, headers)).toEqual({
      id: event.id,
      item_loan: { loan_id: '234001' },
    });
    expect(() =>
      new Webhook(secret).verify(request.body.replace('234001', '234002'), headers),
    ).toThrow(WebhookVerificationError);
    expect(request.headers).not.toHaveProperty('x-svc-signature');
  });

  it('signs the svc way under a header name of the route', async () => {
    const { request } = await deliverOne(
      '{ url: "${URL}", secret: "${S}", signatureHeader: X-Hub-Sig }',
      { S: 'hmac-key' },
    );
    expect(request.headers['x-hub-sig']).toBe(
      createHmac('sha256', 'hmac-key').update(request.body).digest('base64'),
    );
    expect(request.headers).not.toHaveProperty('x-svc-signature');
  });

  it('refuses at start-up standard-webhooks without a base64 secret, naming the field', () => {
    const problems = (http: string): readonly string[] => {
      try {
        parseRoutesFile(`routes:\n  - name: r\n    to: { http: ${http} }\n`, {});
      } catch (error) {
        if (error instanceof StartupFileError) return error.problems;
        throw error;
      }
      throw new Error('accepted');
    };
    const message =
      'route "r": to.http.secret: signing standard-webhooks needs a secret of base64 key bytes (whsec_…)';
    expect(problems('{ url: "https://x.org/in", signing: standard-webhooks }')).toEqual([message]);
    expect(
      problems('{ url: "https://x.org/in", secret: "not base64!", signing: standard-webhooks }'),
    ).toEqual([message]);
    expect(problems('{ url: "https://x.org/in", signing: jwt }')[0]).toBe(
      'route "r": to.http.signing: one of svc, standard-webhooks',
    );
  });
});
