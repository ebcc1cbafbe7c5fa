import request from 'supertest';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';

const TIME = '"time":"2024-11-06T10:15:30Z"';

function post(
  listener: ListenerUnderTest,
  body: string,
  contentType = 'application/json',
): request.Test {
  return request(listener.app)
    .post('/webhooks')
    .set('Content-Type', contentType)
    .set('X-Svc-Signature', signWebhookBody(TEST_SECRET, body))
    .send(body);
}

/** Signed deliveries that were answered 4xx and lost before, and what is kept now. */
describe('POST /webhooks: the canonical event is what the platform sent', () => {
  let listener: ListenerUnderTest;
  beforeEach(() => {
    listener = listenerUnderTest();
  });
  afterEach(async () => {
    await listener.close();
  });

  const waiting = async (): Promise<Record<string, unknown>[]> =>
    (await listener.events.queue.getJobs(['waiting'])).map(
      (job) => job.data as Record<string, unknown>,
    );

  it('queues two numeric ids above 2^53 as two events, each with its exact digits', async () => {
    const first = await post(listener, `{"id":9007199254740993,"action":"job_end",${TIME}}`);
    const second = await post(listener, `{"id":9007199254740992,"action":"job_end",${TIME}}`);
    expect(first.body).toEqual({ status: 'queued', id: '9007199254740993' });
    expect(second.body).toEqual({ status: 'queued', id: '9007199254740992' });
    const ids = (await listener.events.queue.getJobs(['waiting'])).map((job) => job.id).sort();
    expect(ids).toEqual(['evt-9007199254740992', 'evt-9007199254740993']);
  });

  it('queues a time without a zone as sent, and a padded action trimmed', async () => {
    const body = '{"id":"t-1","action":"JOB_END ","time":"2024-11-06 10:15:30"}';
    const res = await post(listener, body);
    expect(res.status).toBe(200);
    const [job] = await listener.events.queue.getJobs(['waiting']);
    expect(job?.name).toBe('job_end');
    expect(job?.data).toMatchObject({ action: 'job_end', time: '2024-11-06 10:15:30' });
  });

  it('answers 400 (not 503) to JSON and XML nested 3,000 deep, and queues nothing', async () => {
    const json = `{"id":"d-1","action":"a",${TIME},"x":${'['.repeat(3000)}${']'.repeat(3000)}}`;
    const xml = `<webhook><id>d-2</id>${'<a>'.repeat(3000)}${'</a>'.repeat(3000)}</webhook>`;
    for (const [body, type] of [
      [json, 'application/json'],
      [xml, 'application/xml'],
    ] as const) {
      const res = await post(listener, body, type);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('body is nested deeper than 200 levels');
    }
    expect(await waiting()).toEqual([]);
  });

  it('queues XML whose CDATA and comments hold <!DOCTYPE, with the text as sent', async () => {
    const xml =
      '<!-- <!DOCTYPE webhook> --><webhook><id>c-1</id><action>NOTIFICATION</action>' +
      '<time>2024-11-06T10:15:30Z</time><notification_data><body><![CDATA[ <!DOCTYPE html><p>Hi</p> ]]></body>' +
      '</notification_data></webhook>';
    const res = await post(listener, xml, 'application/xml');
    expect(res.status).toBe(200);
    const [data] = await waiting();
    expect(data?.notification_data).toEqual({ body: ' <!DOCTYPE html><p>Hi</p> ' });
  });

  it('keeps USER with user: {}, bare strings under status and type, and a numeric instance id as a string', async () => {
    const user =
      '{"id":"u-1","action":"USER",' +
      TIME +
      ',"webhook_user":{"user":{},"method":"DELETE"},"bib":{"linked_record_id":{"type":"CZ"}}}';
    const job = `{"id":"j-1","action":"JOB_END",${TIME},"job_instance":{"id":5871043560000561,"status":"COMPLETED_SUCCESS"}}`;
    expect((await post(listener, user)).status).toBe(200);
    expect((await post(listener, job)).status).toBe(200);
    const byId = Object.fromEntries((await waiting()).map((data) => [data.id, data]));
    expect(byId['u-1']).toMatchObject({
      webhook_user: { user: {}, method: 'DELETE' },
      bib: { linked_record_id: { type: 'CZ' } },
    });
    expect(byId['j-1']?.job_instance).toEqual({
      id: '5871043560000561',
      status: { value: 'COMPLETED_SUCCESS' },
    });
  });
});
