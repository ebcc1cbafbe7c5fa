import { ConfigError, loadConfig, WebConfig, WorkerConfig } from '../../src/config';
import { CliQueueConfig } from '../../src/cli/cli-config';

const web = { WEBHOOK_SECRET: 'a-secret-of-16-characters' };
const worker = { SVC_BASE_URL: 'http://127.0.0.1:8790', SVC_API_KEY: 'k' };

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('no ConfigError');
}

describe('the Redis keys', () => {
  it('leave Sentinel off and REDIS_ACK_REPLICAS at 0 (500 ms) by default', () => {
    const config = loadConfig(WebConfig, web);
    expect(config.REDIS_SENTINELS).toBeUndefined();
    expect(config.REDIS_SENTINEL_NAME).toBeUndefined();
    expect(config.REDIS_ACK_REPLICAS).toBe(0);
    expect(config.REDIS_ACK_TIMEOUT_MS).toBe(500);
  });

  it('read REDIS_SENTINELS as host:port pairs, 26379 when a port is left out, IPv6 in brackets', () => {
    const config = loadConfig(WorkerConfig, {
      ...worker,
      REDIS_SENTINELS: 'sentinel-a:26380, 10.0.0.7 ,[::1]:26381',
      REDIS_SENTINEL_NAME: 'svc-primary',
    });
    expect(config.REDIS_SENTINELS).toEqual([
      { host: 'sentinel-a', port: 26380 },
      { host: '10.0.0.7', port: 26379 },
      { host: '::1', port: 26381 },
    ]);
  });

  it.each([
    ['WebConfig', WebConfig, web],
    ['WorkerConfig', WorkerConfig, worker],
    ['CliQueueConfig', CliQueueConfig, {}],
  ] as const)(
    '%s wants both sentinel keys or neither, naming the missing one',
    (_, schema, base) => {
      const noName = configError(() => loadConfig(schema, { ...base, REDIS_SENTINELS: 'a:1' }));
      expect(noName.message).toContain('REDIS_SENTINEL_NAME (required with REDIS_SENTINELS)');
      const noList = configError(() => loadConfig(schema, { ...base, REDIS_SENTINEL_NAME: 'm' }));
      expect(noList.message).toContain('REDIS_SENTINELS (required with REDIS_SENTINEL_NAME)');
    },
  );

  it('refuse a malformed list or an ack timeout past the sender’s patience, never echoing a value', () => {
    const error = configError(() =>
      loadConfig(WebConfig, {
        ...web,
        REDIS_SENTINELS: 'a:1,b:99999-XYZ',
        REDIS_SENTINEL_NAME: 'm',
        REDIS_ACK_TIMEOUT_MS: '9000',
      }),
    );
    expect(error.keys.sort()).toEqual(['REDIS_ACK_TIMEOUT_MS', 'REDIS_SENTINELS']);
    expect(error.message).toContain('REDIS_SENTINELS (host:port pairs separated by commas)');
    expect(error.message).not.toContain('XYZ');
  });
});
