import { ConfigError, loadConfig, WebConfig } from '../../src/config';

describe('loadConfig', () => {
  it('applies the documented defaults when only the secret is set', () => {
    const config = loadConfig(WebConfig, { WEBHOOK_SECRET: 's3cret' });
    expect(config).toMatchObject({
      PORT: 3000,
      WEBHOOK_PATH: '/webhooks',
      BODY_LIMIT: '1mb',
      REDIS_URL: 'redis://127.0.0.1:6379',
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
    expect(error.message).not.toContain('XYZ');
  });

  it('treats an empty value as unset, so a blank secret is still missing', () => {
    expect(() => loadConfig(WebConfig, { WEBHOOK_SECRET: '' })).toThrow(
      /WEBHOOK_SECRET \(required\)/,
    );
  });
});
