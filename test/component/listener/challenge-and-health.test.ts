import request from 'supertest';
import { listenerUnderTest } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';

describe('GET /webhooks?challenge=', () => {
  let listener: ListenerUnderTest;
  beforeAll(() => {
    listener = listenerUnderTest();
  });
  afterAll(async () => {
    await listener.close();
  });

  it.each([
    'abc123',
    '<script>alert(1)</script>',
    'quote " backslash \\ and unicode 東京 ✓',
    ' spaced ',
  ])('echoes %p exactly as JSON', async (challenge) => {
    const res = await request(listener.app).get('/webhooks').query({ challenge });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.text).toBe(JSON.stringify({ challenge }));
  });

  it.each([
    ['missing', ''],
    ['empty', '?challenge='],
    ['repeated', '?challenge=a&challenge=b'],
  ])('answers 400 with a JSON error when the challenge is %s', async (_name, query) => {
    const res = await request(listener.app).get(`/webhooks${query}`);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      status: 400,
      error: 'bad_request',
      message: 'query parameter challenge is required',
    });
  });

  it('answers /healthz and /readyz with 200 while Redis answers', async () => {
    expect((await request(listener.app).get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await request(listener.app).get('/readyz')).body).toEqual({ status: 'ready' });
  });

  it('answers unknown paths with a JSON 404', async () => {
    const res = await request(listener.app).get('/nope');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });
});
