import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ConsoleConfig, loadConfig } from '../../../src/config';
import { sha256Hex } from '../../../src/console';
import { createConsoleProcess } from '../../../src/processes/console-process';
import type { ConsoleProcess } from '../../../src/processes/console-process';
import { closeRedis } from '../../../src/redis/close-redis';
import { openProducerConnection } from '../../../src/redis/open-producer-connection';
import { captureLogger } from '../../helpers/capture-logger';
import { obliterateQueue, TEST_REDIS_URL, uniqueQueueName } from '../../helpers/redis';

const OPERATOR = 'operator-token-of-the-csrf-test';
const VIEWER = 'viewer-token-of-the-csrf-test';
const IDENTITY = 'jane@library.example';
const PROXY_SECRET = 'the-sso-proxy-secret-of-32-characters+';
const BASIC = `Basic ${Buffer.from(`${IDENTITY}:proxy-password`).toString('base64')}`;

/**
 * A console with a token file and single sign-on through a proxy on the loopback, in a queue and
 * a directory of its own that `close` removes.
 */
async function startConsole(more: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'svc-console-auth-'));
  const queueName = uniqueQueueName('console-auth');
  await writeFile(
    join(dir, 'tokens.yaml'),
    'tokens:\n' +
      `  - { name: ops, sha256: ${sha256Hex(OPERATOR)}, role: operator }\n` +
      `  - { name: reader, sha256: ${sha256Hex(VIEWER)}, role: viewer }\n`,
  );
  await writeFile(
    join(dir, 'roles.yaml'),
    `identities:\n  - { identity: ${IDENTITY}, role: operator }\n`,
  );
  await writeFile(
    join(dir, 'routes.yaml'),
    'routes:\n  - name: loans\n    to: { http: { url: "https://example.org/hook" } }\n',
  );
  const env = {
    QUEUE_NAME: queueName,
    CONSOLE_TOKENS_FILE: join(dir, 'tokens.yaml'),
    CONSOLE_ROLES_FILE: join(dir, 'roles.yaml'),
    CONSOLE_TRUSTED_PROXY: '127.0.0.1,::1',
    CONSOLE_PROXY_SECRET: PROXY_SECRET,
    ROUTES_FILE: join(dir, 'routes.yaml'),
    ...more,
  };
  const connection = openProducerConnection(TEST_REDIS_URL);
  const captured = captureLogger();
  const consoleProcess = createConsoleProcess({
    config: loadConfig(ConsoleConfig, env),
    logger: captured.logger,
    connection,
    env,
  });
  return {
    consoleProcess,
    captured,
    close: async () => {
      await consoleProcess.close();
      await closeRedis(connection);
      await obliterateQueue(queueName);
      await obliterateQueue(`${queueName}-route-loans`);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

describe('CSRF on the console’s state-changing requests', () => {
  let started: Awaited<ReturnType<typeof startConsole>>;
  let consoleProcess: ConsoleProcess;
  let cookie: string;

  beforeAll(async () => {
    started = await startConsole();
    consoleProcess = started.consoleProcess;
    const signIn = await request(consoleProcess.app)
      .post('/sign-in')
      .type('form')
      .send({ token: OPERATOR });
    expect(signIn.status).toBe(303);
    cookie = String(signIn.headers['set-cookie']?.[0]).split(';')[0] ?? '';
  });
  afterAll(() => started.close());

  const app = () => request(consoleProcess.app);
  /** The CSRF token the console's pages carry for this cookie or identity. */
  const csrfOf = async (headers: Record<string, string>): Promise<string> => {
    const page = await app().get('/routes').set(headers);
    expect(page.status).toBe(200);
    return /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  };

  it('refuses a session cookie with Basic auth and no token, on the API and the forms', async () => {
    const api = await app()
      .post('/api/v1/routes/loans/pause')
      .set({ Cookie: cookie, Authorization: BASIC });
    expect([api.status, api.body.error]).toEqual([403, 'csrf']);
    const form = await app()
      .post('/routes/loans/pause')
      .set({ Cookie: cookie, Authorization: BASIC })
      .type('form')
      .send({});
    expect(form.status).toBe(403);
    const state = await app().get('/api/v1/routes').set('Authorization', `Bearer ${OPERATOR}`);
    expect(state.body.items[0].state).toBe('running');
  });

  it('refuses the proxy’s identity with Basic auth and no token', async () => {
    const proxied = {
      'X-Forwarded-User': IDENTITY,
      'X-Console-Proxy-Secret': PROXY_SECRET,
      Authorization: BASIC,
    };
    const api = await app().post('/api/v1/routes/loans/pause').set(proxied);
    expect([api.status, api.body.error]).toEqual([403, 'csrf']);
    const token = await csrfOf({
      'X-Forwarded-User': IDENTITY,
      'X-Console-Proxy-Secret': PROXY_SECRET,
    });
    const held = await app()
      .post('/api/v1/routes/loans/resume')
      .set({ ...proxied, 'X-CSRF-Token': token });
    expect(held.status).toBe(200);
  });

  it('lets a Bearer token act without a CSRF token', async () => {
    const api = await app()
      .post('/api/v1/routes/loans/pause')
      .set('Authorization', `Bearer ${OPERATOR}`);
    expect(api.status).toBe(200);
    expect(api.body.message).toMatch(/^route loans paused/);
  });

  it('lets a session cookie act with the page’s CSRF token', async () => {
    const token = await csrfOf({ Cookie: cookie });
    const api = await app()
      .post('/api/v1/routes/loans/resume')
      .set({ Cookie: cookie, 'X-CSRF-Token': token });
    expect(api.status).toBe(200);
    const form = await app()
      .post('/routes/loans/pause')
      .set({ Cookie: cookie })
      .type('form')
      .send({ _csrf: token });
    expect([form.status, form.headers.location]).toEqual([
      303,
      expect.stringMatching(/^\/routes\?/),
    ]);
  });
});

describe('guesses of a Bearer token', () => {
  it('answers 429 with Retry-After after 10 wrong tokens a minute, counting no right one', async () => {
    const { consoleProcess, close } = await startConsole();
    const app = () => request(consoleProcess.app);
    try {
      for (let call = 0; call < 15; call += 1) {
        const right = await app().get('/api/v1/routes').set('Authorization', `Bearer ${OPERATOR}`);
        expect(right.status).toBe(200);
      }
      const statuses: number[] = [];
      for (let guess = 0; guess < 11; guess += 1) {
        const wrong = await app()
          .get('/api/v1/routes')
          .set('Authorization', `Bearer guess-${String(guess)}`);
        statuses.push(wrong.status);
      }
      expect(statuses).toEqual([...Array<number>(10).fill(401), 429]);
      const limited = await app().get('/api/v1/routes').set('Authorization', `Bearer ${OPERATOR}`);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.body.error).toBe('too_many_attempts');
    } finally {
      await close();
    }
  });
});

describe('guesses of a Bearer token from many clients', () => {
  /** The console's own limits (create-console-app.ts): per client, and all clients together. */
  const PER_CLIENT = 10;
  const OVERALL = 100;

  it('holds wrong tokens past the overall ceiling, and never refuses another client’s right token', async () => {
    // The loopback is the trusted proxy: each X-Forwarded-For address is a client of its own.
    const { consoleProcess, close } = await startConsole({ CONSOLE_TRUSTED_PROXIES: '127.0.0.1' });
    const server = createServer(consoleProcess.app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/api/v1/routes`;
    const call = async (client: number, token: string) =>
      (
        await fetch(url, {
          headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': `198.51.100.${client}` },
        })
      ).status;
    try {
      const spent: number[] = [];
      for (let client = 1; client <= OVERALL / PER_CLIENT; client += 1) {
        for (let guess = 0; guess < PER_CLIENT; guess += 1) {
          spent.push(await call(client, `guess-${String(client)}-${String(guess)}`));
        }
      }
      expect(spent).toEqual(Array<number>(OVERALL).fill(401));
      let heldAnswer: number | undefined;
      const held = call(11, 'one-guess-too-many').then(
        (status) => (heldAnswer = status),
        () => undefined,
      );

      // Other clients' right tokens, and the held client's own, are answered at once.
      const rights = [await call(12, OPERATOR), await call(13, VIEWER), await call(11, OPERATOR)];

      expect(rights).toEqual([200, 200, 200]);
      expect(heldAnswer).toBeUndefined();
      server.closeAllConnections();
      await held;
    } finally {
      server.close();
      await close();
    }
  });

  it('counts a client behind a chain of proxies as the rightmost address no trusted proxy holds', async () => {
    // X-Forwarded-For: a, b, c where c is a trusted proxy (and the loopback one in front of it):
    // the client is b, whatever a says.
    const { consoleProcess, close } = await startConsole({
      CONSOLE_TRUSTED_PROXIES: '127.0.0.1,::1,203.0.113.9',
    });
    const app = () => request(consoleProcess.app);
    const chain = (a: string, b: string) => `${a}, ${b}, 203.0.113.9`;
    try {
      const statuses: number[] = [];
      for (let guess = 0; guess <= 10; guess += 1) {
        const wrong = await app()
          .get('/api/v1/routes')
          .set('X-Forwarded-For', chain(`198.51.100.${String(guess + 1)}`, '192.0.2.7'))
          .set('Authorization', `Bearer guess-${String(guess)}`);
        statuses.push(wrong.status);
      }
      const fromB = await app()
        .get('/api/v1/routes')
        .set('X-Forwarded-For', chain('198.51.100.99', '192.0.2.7'))
        .set('Authorization', `Bearer ${OPERATOR}`);
      const fromAnotherB = await app()
        .get('/api/v1/routes')
        .set('X-Forwarded-For', chain('198.51.100.1', '192.0.2.8'))
        .set('Authorization', `Bearer ${OPERATOR}`);

      // Each guess came with another a: still one client, b, refused at its 11th.
      expect(statuses).toEqual([...Array<number>(10).fill(401), 429]);
      expect(fromB.status).toBe(429);
      // The same a and the same trusted c, another b: another client.
      expect(fromAnotherB.status).toBe(200);
    } finally {
      await close();
    }
  });
});

describe('the cap on live sessions', () => {
  it('ends the oldest session when one sign-in more would pass CONSOLE_MAX_SESSIONS', async () => {
    const { consoleProcess, close } = await startConsole({ CONSOLE_MAX_SESSIONS: '2' });
    const app = () => request(consoleProcess.app);
    try {
      const cookies: string[] = [];
      for (let one = 0; one < 3; one += 1) {
        const signIn = await app().post('/sign-in').type('form').send({ token: OPERATOR });
        cookies.push(String(signIn.headers['set-cookie']?.[0]).split(';')[0] ?? '');
      }
      const statuses = await Promise.all(
        cookies.map(async (cookie) => (await app().get('/routes').set('Cookie', cookie)).status),
      );
      expect(statuses).toEqual([303, 200, 200]);
    } finally {
      await close();
    }
  });
});

describe('the cap on live sessions, by role', () => {
  it('refuses a viewer’s sign-in (503) rather than end the only operator’s session', async () => {
    const { consoleProcess, close } = await startConsole({ CONSOLE_MAX_SESSIONS: '1' });
    const app = () => request(consoleProcess.app);
    try {
      const operator = await app().post('/sign-in').type('form').send({ token: OPERATOR });
      const cookie = String(operator.headers['set-cookie']?.[0]).split(';')[0] ?? '';
      const viewer = await app().post('/sign-in').type('form').send({ token: VIEWER });

      expect(viewer.status).toBe(503);
      expect((await app().get('/routes').set('Cookie', cookie)).status).toBe(200);
    } finally {
      await close();
    }
  });
});

describe('trusted proxies on the loopback', () => {
  const warnings = (lines: Record<string, unknown>[]) =>
    lines.filter((line) => String(line.msg).startsWith('console trusts a loopback address'));

  it('warns once at start, naming the keys', async () => {
    const { captured, close } = await startConsole({ CONSOLE_TRUSTED_PROXIES: '127.0.0.0/8' });
    try {
      expect(warnings(captured.lines()).map((line) => line.keys)).toEqual([
        ['CONSOLE_TRUSTED_PROXIES', 'CONSOLE_TRUSTED_PROXY'],
      ]);
    } finally {
      await close();
    }
  });

  it('says nothing when no trusted address is on the loopback', async () => {
    const { captured, close } = await startConsole({ CONSOLE_TRUSTED_PROXY: '192.0.2.10' });
    try {
      expect(warnings(captured.lines())).toEqual([]);
    } finally {
      await close();
    }
  });
});
