import express from 'express';
import request from 'supertest';
import { createConsoleAuth } from '../../../src/console/auth/console-auth';

/** A route answering who the console thinks is asking. */
function whoAmI(trustedProxies: string[]) {
  const auth = createConsoleAuth({
    tokens: { tokens: [] },
    roles: {
      identities: [
        { identity: 'jane@library.example', role: 'operator' },
        { identity: 'desk@inst-a.example', role: 'viewer', institution: 'INST_A' },
      ],
    },
    trustedProxies,
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
  it('maps the identity header of a trusted proxy to its role and institution', async () => {
    const app = whoAmI(['127.0.0.1', '::1']);
    const desk = await request(app).get('/who').set('X-Forwarded-User', 'desk@inst-a.example');
    expect(desk.body).toEqual({
      name: 'desk@inst-a.example',
      role: 'viewer',
      institution: 'INST_A',
      via: 'proxy',
    });
  });

  it('refuses an identity the roles file does not name', async () => {
    const app = whoAmI(['127.0.0.1', '::1']);
    const answer = await request(app).get('/who').set('X-Forwarded-User', 'mallory@example.org');
    expect(answer.body).toBeNull();
  });

  it('ignores the header when the request does not come from a trusted proxy', async () => {
    const app = whoAmI(['192.0.2.10']);
    const answer = await request(app).get('/who').set('X-Forwarded-User', 'jane@library.example');
    expect(answer.body).toBeNull();
  });
});
