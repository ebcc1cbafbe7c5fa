import {
  ConfigError,
  ConsoleConfig,
  EnvSchema,
  listenerSpoolDir,
  loadConfig,
  WebConfig,
  WorkerConfig,
} from '../../src/config';
import { bodyCapsOf } from '../../src/body-caps-of';

describe('loadConfig', () => {
  it('applies the documented defaults when only the secret is set', () => {
    const config = loadConfig(WebConfig, { WEBHOOK_SECRET: 'a-secret-of-24-characters' });
    expect(config).toMatchObject({
      PORT: 3000,
      WEBHOOK_PATH: '/webhooks',
      BODY_LIMIT: '1mb',
      // The documented default, a value only: no test connects to it.
      REDIS_URL: expect.stringMatching(/^redis:\/\/127\.0\.0\.1:6379$/) as unknown,
      QUEUE_NAME: 'svc-events',
      DEDUP_WINDOW_HOURS: 48,
      LOG_LEVEL: 'info',
    });
    expect(config.WEBHOOK_SECRET_PREVIOUS).toBeUndefined();
  });

  it('fails naming every bad key and never its value', () => {
    const env = { PORT: 'not-a-port-XYZ', LOG_LEVEL: 'loud-XYZ', QUEUE_NAME: 'a:b-XYZ' };
    let caught: unknown;
    try {
      loadConfig(WebConfig, env);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.keys.sort()).toEqual(['LOG_LEVEL', 'PORT', 'QUEUE_NAME', 'WEBHOOK_SECRET']);
    expect(error.message).toContain('WEBHOOK_SECRET (required)');
    // Where the keys come from, for a deployer whose .env was not read.
    expect(error.message).toContain('the .env file of the directory they run in');
    expect(error.message).not.toContain('XYZ');
  });

  it('treats an empty value as unset, so a blank secret is still missing', () => {
    expect(() => loadConfig(WebConfig, { WEBHOOK_SECRET: '' })).toThrow(
      /WEBHOOK_SECRET \(required\)/,
    );
  });
});

describe('the API client’s body caps from the environment', () => {
  const worker = { SVC_BASE_URL: 'https://api.example.org', SVC_API_KEY: 'k' };

  it('reads SVC_MAX_LIST_BYTES and SVC_MAX_ANSWER_BYTES into the client’s list and document caps', () => {
    const config = loadConfig(WorkerConfig, {
      ...worker,
      SVC_MAX_LIST_BYTES: '65536',
      SVC_MAX_ANSWER_BYTES: '4096',
    });

    expect(bodyCapsOf(config)).toEqual({ list: 65_536, document: 4096 });
  });

  it('leaves the client’s defaults when unset, one cap at a time', () => {
    expect(bodyCapsOf(loadConfig(WorkerConfig, worker))).toEqual({});
    expect(bodyCapsOf(loadConfig(WorkerConfig, { ...worker, SVC_MAX_LIST_BYTES: '1' }))).toEqual({
      list: 1,
    });
  });

  it('refuses a cap that is no positive whole number, naming the key', () => {
    for (const value of ['0', '-1', '1.5', 'lots']) {
      expect(() => loadConfig(WorkerConfig, { ...worker, SVC_MAX_ANSWER_BYTES: value })).toThrow(
        /SVC_MAX_ANSWER_BYTES/,
      );
    }
  });
});

describe('loadConfig: webhook secrets and listener bounds', () => {
  it.each(['WEBHOOK_SECRET', 'WEBHOOK_SECRET_PREVIOUS'])(
    'refuses a %s shorter than 16 characters, without printing it',
    (key) => {
      // 15 characters.
      const env = { WEBHOOK_SECRET: 'a-secret-of-24-characters', [key]: 'short-XYZ-secre' };
      expect(() => loadConfig(WebConfig, env)).toThrow(`${key} (at least 16 characters)`);
      try {
        loadConfig(WebConfig, env);
      } catch (error) {
        expect((error as Error).message).not.toContain('XYZ');
      }
    },
  );

  it('accepts secrets of 16 characters', () => {
    const sixteen = 'x'.repeat(16);
    const config = loadConfig(WebConfig, {
      WEBHOOK_SECRET: sixteen,
      WEBHOOK_SECRET_PREVIOUS: sixteen,
    });
    expect(config.WEBHOOK_SECRET_PREVIOUS).toBe(sixteen);
  });

  it('has the bounds of the unauthenticated surface, the rejected store, the metrics token and the spool', () => {
    const config = loadConfig(WebConfig, { WEBHOOK_SECRET: 'a-secret-of-24-characters' });
    expect(config).toMatchObject({
      HEADERS_TIMEOUT_MS: 10000,
      REQUEST_TIMEOUT_MS: 15000,
      KEEP_ALIVE_TIMEOUT_MS: 65000,
      MAX_CONNECTIONS: 1024,
      REJECTED_MAX_COUNT: 1000,
      REJECTED_MAX_AGE_HOURS: 336,
      SPOOL_MAX_BYTES: 268435456,
    });
    expect(config.METRICS_TOKEN).toBeUndefined();
    // Unset here: bin/web.ts resolves the default directory (listenerSpoolDir).
    expect(config.SPOOL_DIR).toBeUndefined();
  });

  it('listens on the loopback by default, the listener and the worker metrics alike', () => {
    const web = loadConfig(WebConfig, { WEBHOOK_SECRET: 'a-secret-of-24-characters' });
    const worker = loadConfig(WorkerConfig, {
      SVC_BASE_URL: 'https://x.example',
      SVC_API_KEY: 'k',
    });

    expect([web.HOST, worker.WORKER_METRICS_HOST]).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(
      loadConfig(WebConfig, { WEBHOOK_SECRET: 'a-secret-of-24-characters', HOST: '0.0.0.0' }).HOST,
    ).toBe('0.0.0.0');
  });

  it('reads no ADMIN_TOKEN: no process serves a queue dashboard any more', () => {
    expect(Object.keys(EnvSchema.shape)).not.toContain('ADMIN_TOKEN');
    const config = loadConfig(WebConfig, {
      WEBHOOK_SECRET: 'a-secret-of-24-characters',
      ADMIN_TOKEN: 'an-admin-token-of-24-chars',
    });
    expect(Object.keys(config)).not.toContain('ADMIN_TOKEN');
  });
});

describe('loadConfig: the console behind proxies', () => {
  const base = { CONSOLE_TOKENS_FILE: '/etc/svcws/console-tokens.yaml' };
  const sso = {
    ...base,
    CONSOLE_ROLES_FILE: '/etc/svcws/console-roles.yaml',
    CONSOLE_TRUSTED_PROXY: '127.0.0.1',
  };

  it('refuses CONSOLE_TRUSTED_PROXY without CONSOLE_PROXY_SECRET, saying what is now required', () => {
    expect(() => loadConfig(ConsoleConfig, sso)).toThrow(
      /CONSOLE_PROXY_SECRET \(required with CONSOLE_TRUSTED_PROXY: an identity header is now believed only with this secret/,
    );
  });

  it('refuses a CONSOLE_PROXY_SECRET shorter than 32 characters, never quoting it', () => {
    const load = () => loadConfig(ConsoleConfig, { ...sso, CONSOLE_PROXY_SECRET: 'short-XYZ' });
    expect(load).toThrow(/CONSOLE_PROXY_SECRET \(at least 32 characters\)/);
    expect(load).not.toThrow(/XYZ/);
  });

  it('reads CONSOLE_TRUSTED_PROXIES as addresses and CIDR ranges, and refuses a host name', () => {
    const config = loadConfig(ConsoleConfig, {
      ...base,
      CONSOLE_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.7,::1,fd00::/8',
    });
    expect(config.CONSOLE_TRUSTED_PROXIES).toEqual(['10.0.0.0/8', '192.0.2.7', '::1', 'fd00::/8']);
    for (const bad of ['proxy.example.org', '10.0.0.0/33', '10.0.0.1/8/2']) {
      expect(() => loadConfig(ConsoleConfig, { ...base, CONSOLE_TRUSTED_PROXIES: bad })).toThrow(
        /CONSOLE_TRUSTED_PROXIES \(IP addresses or CIDR ranges/,
      );
    }
  });

  it('caps sessions per principal at 10 unless told', () => {
    expect(loadConfig(ConsoleConfig, base).CONSOLE_MAX_SESSIONS_PER_PRINCIPAL).toBe(10);
  });
});

describe('listenerSpoolDir: where the listener spools', () => {
  it('spools in $STATE_DIRECTORY/spool under systemd, the first of several directories', () => {
    expect(
      listenerSpoolDir(undefined, { STATE_DIRECTORY: '/var/lib/svcws-listener' }, '/opt/x'),
    ).toEqual({
      dir: '/var/lib/svcws-listener/spool',
      from: 'STATE_DIRECTORY',
    });
    expect(
      listenerSpoolDir(undefined, { STATE_DIRECTORY: '/var/lib/a:/var/lib/b' }, '/opt/x').dir,
    ).toBe('/var/lib/a/spool');
  });

  it('spools in ./spool under the working directory otherwise', () => {
    expect(listenerSpoolDir(undefined, {}, '/opt/svcws-listener')).toEqual({
      dir: '/opt/svcws-listener/spool',
      from: 'working directory',
    });
    expect(listenerSpoolDir(undefined, { STATE_DIRECTORY: '' }, '/app').dir).toBe('/app/spool');
  });

  it('takes SPOOL_DIR as given, and off as no spool at all', () => {
    expect(listenerSpoolDir('/data/spool', { STATE_DIRECTORY: '/var/lib/s' }, '/app')).toEqual({
      dir: '/data/spool',
      from: 'SPOOL_DIR',
    });
    expect(listenerSpoolDir('off', { STATE_DIRECTORY: '/var/lib/s' }, '/app')).toEqual({
      dir: undefined,
      from: 'SPOOL_DIR=off',
    });
  });
});
