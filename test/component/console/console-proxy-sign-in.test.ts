import express from 'express';
import request from 'supertest';
import { createConsoleAuth } from '../../../src/console/auth/console-auth';

const SECRET = 'the-sso-proxy-secret-of-32-characters+';

/** A route answering who the console thinks is asking. */
function whoAmI(identityProxies: string[], proxySecret: string | undefined = SECRET) {
  const auth = createConsoleAuth({
    tokens: { tokens: [] },
    roles: {
      identities: [
        { identity: 'jane@library.example', role: 'operator' },
        { identity: 'desk@inst-a.example', role: 'viewer', institution: 'INST_A' },
      ],
    },
    identityProxies,
    proxySecret,
    identityHeader: 'X-Forwarded-User',
    sessionTtlMs: 60_000,
    maxSessions: 10,
  });
  const app = express();
  app.get('/who', (req, res) => {
    res.json(auth.principalOf(req) ?? null);
  });
  return app;
}

describe('single sign-on through a trusted reverse proxy', () => {
  it('maps the identity header of a trusted proxy with its secret to its role and institution', async () => {
    const app = whoAmI(['127.0.0.0/8', '::1']);
    const desk = await request(app)
      .get('/who')
      .set({ 'X-Forwarded-User': 'desk@inst-a.example', 'X-Console-Proxy-Secret': SECRET });
    expect(desk.body).toEqual({
      name: 'desk@inst-a.example',
      role: 'viewer',
      institution: 'INST_A',
      via: 'proxy',
    });
  });

  it('refuses an identity the roles file does not name', async () => {
    const app = whoAmI(['127.0.0.1', '::1']);
    const answer = await request(app)
      .get('/who')
      .set({ 'X-Forwarded-User': 'mallory@example.org', 'X-Console-Proxy-Secret': SECRET });
    expect(answer.body).toBeNull();
  });

  it('ignores the header when the request does not come from a trusted proxy', async () => {
    const app = whoAmI(['192.0.2.10']);
    const answer = await request(app)
      .get('/who')
      .set({ 'X-Forwarded-User': 'jane@library.example', 'X-Console-Proxy-Secret': SECRET });
    expect(answer.body).toBeNull();
  });

  it('ignores the header from a trusted address without the proxy’s secret, or with another', async () => {
    const app = whoAmI(['127.0.0.1', '::1']);
    const none = await request(app).get('/who').set('X-Forwarded-User', 'jane@library.example');
    const other = await request(app)
      .get('/who')
      .set({ 'X-Forwarded-User': 'jane@library.example', 'X-Console-Proxy-Secret': `${SECRET}x` });
    expect([none.body, other.body]).toEqual([null, null]);
  });

  it('believes no identity at all when no secret is configured', async () => {
    const app = whoAmI(['127.0.0.1', '::1'], undefined);
    const answer = await request(app)
      .get('/who')
      .set({ 'X-Forwarded-User': 'jane@library.example', 'X-Console-Proxy-Secret': '' });
    expect(answer.body).toBeNull();
  });
});
