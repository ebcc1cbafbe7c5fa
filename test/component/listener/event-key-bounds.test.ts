import request from 'supertest';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';

const TIME = '2024-11-06T10:15:30Z';

function loan(fields: { id: string; institution?: string; event?: string; action?: string }) {
  return JSON.stringify({
    id: fields.id,
    action: fields.action ?? 'LOAN',
    time: TIME,
    event: { value: fields.event ?? 'LOAN_CREATED' },
    institution: { value: fields.institution ?? '01ABC_INST' },
    item_loan: { loan_id: '7001' },
  });
}

function post(app: ListenerUnderTest['app'], body: string) {
  return request(app)
    .post('/webhooks')
    .set('Content-Type', 'application/json')
    .set('X-Svc-Signature', signWebhookBody(TEST_SECRET, body))
    .send(body);
}

describe('the keys every part of the system uses, bounded at the door', () => {
  let listener: ListenerUnderTest;
  beforeEach(() => {
    listener = listenerUnderTest({ bodyLimit: '1mb' });
  });
  afterEach(async () => {
    await listener.close();
  });

  it.each([
    ['id', loan({ id: '9'.repeat(400_000) }), 'id is invalid: longer than 255 bytes'],
    ['id', loan({ id: '12\ud80034' }), 'id is invalid: holds a control character'],
    ['id', loan({ id: '12\r\nX-Injected: 1' }), 'id is invalid: holds a control character'],
    ['id', loan({ id: '12\u0000' }), 'id is invalid: holds a control character'],
    [
      'institution.value',
      loan({ id: '1', institution: 'I'.repeat(256) }),
      'institution.value is invalid: longer than 255 bytes',
    ],
    [
      'event.value',
      loan({ id: '2', event: 'LOAN\u0085' }),
      'event.value is invalid: holds a control character',
    ],
    ['action', loan({ id: '3', action: 'a'.repeat(65) }), 'action is invalid: at most 64'],
  ])(
    'answers 400 naming %s outside its bounds, and keeps the signed body',
    async (_f, body, why) => {
      const res = await post(listener.app, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_event' });
      expect(String(res.body.message)).toContain(why);
      const [entry, ...more] = await listener.rejected.list();
      expect(more).toEqual([]);
      expect(entry).toMatchObject({ status: 400, reason: res.body.message });
      expect((await listener.rejected.get(entry?.ref ?? ''))?.body.toString('utf8')).toBe(body);
      expect(await listener.events.queue.count()).toBe(0);
    },
  );

  it('takes keys at the bounds, and any content in the other values', async () => {
    const id = '9'.repeat(255);
    const body = JSON.stringify({
      ...(JSON.parse(loan({ id, institution: 'É'.repeat(127), event: 'LOAN_CREATED' })) as object),
      item_loan: { loan_id: '7001', note: 'line\r\nbreak \ud800 \u0000 ' + 'x'.repeat(70_000) },
    });
    const res = await post(listener.app, body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'queued', id });
    expect(await listener.rejected.list()).toEqual([]);
  });
});
