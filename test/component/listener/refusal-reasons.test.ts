import request from 'supertest';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';

const EMAIL = 'jane.patron@example.org';

function post(app: ListenerUnderTest['app'], body: string, contentType: string) {
  return request(app)
    .post('/webhooks')
    .set('Content-Type', contentType)
    .set('X-Svc-Signature', signWebhookBody(TEST_SECRET, body))
    .send(body);
}

describe('the reason a malformed body is refused: where and what, never its bytes', () => {
  let listener: ListenerUnderTest;
  beforeEach(() => {
    listener = listenerUnderTest();
  });
  afterEach(async () => {
    await listener.close();
  });

  it.each([
    [
      'JSON',
      `{"id":"1","action":"USER","user":{"email":${EMAIL}}}`,
      'application/json',
      'body is not valid JSON: unexpected character at line 1, column 43 (character 42)',
    ],
    [
      'JSON, a short body',
      EMAIL,
      'application/json',
      'body is not valid JSON: unexpected character at line 1, column 1 (character 0)',
    ],
    [
      'XML',
      `<webhook><id>1</id><user><${EMAIL}/></user></webhook>`,
      'application/xml',
      'body is not well-formed XML: disallowed character in tag name (line 1, column 38)',
    ],
    [
      'XML, whose parser names the tag left open',
      '<webhook><id>1</id><jane.patron>',
      'application/xml',
      'body is not well-formed XML: unclosed tag (line 1, column 32)',
    ],
  ])(
    '%s: the 400, the log line and the rejected store hold no byte of it',
    async (_f, body, type, reason) => {
      const res = await post(listener.app, body, type);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(reason);
      expect(res.text).not.toContain('jane');
      const [entry] = await listener.rejected.list();
      expect(entry?.reason).toBe(reason);
      const line = listener.log.lines().find((one) => one.msg === 'delivery');
      expect(line).toMatchObject({ httpStatus: 400, reason });
      expect(listener.log.text()).not.toContain('jane');
    },
  );
});
