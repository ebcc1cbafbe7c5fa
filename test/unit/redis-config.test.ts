import { ConfigError, ConsoleConfig, loadConfig, WebConfig, WorkerConfig } from '../../src/config';
import { CliQueueConfig, CliRejectedConfig } from '../../src/cli/cli-config';
import { CliRoutesConfig } from '../../src/cli/open-route-queues';
import { institutionQueueName } from '../../src/institutions/institution-queue-name';
import { redisWhere } from '../../src/redis/redis-target';
import { routeQueueName } from '../../src/routes/route-queue-name';

const web = { WEBHOOK_SECRET: 'a-secret-of-16-characters' };
const worker = { SVC_BASE_URL: 'http://127.0.0.1:8790', SVC_API_KEY: 'k' };
// The file is read by the console at its start, not by the schema.
const consoleKeys = { CONSOLE_TOKENS_FILE: '/etc/svcws/console-tokens.yaml' };

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

describe('REDIS_CLUSTER_NODES', () => {
  it('reads host:port pairs, 6379 when a port is left out, and says where in messages', () => {
    const config = loadConfig(WorkerConfig, {
      ...worker,
      REDIS_CLUSTER_NODES: 'node-a:7000, 10.0.0.8,[::1]:7002',
    });
    expect(config.REDIS_CLUSTER_NODES).toEqual([
      { host: 'node-a', port: 7000 },
      { host: '10.0.0.8', port: 6379 },
      { host: '::1', port: 7002 },
    ]);
    expect(config.REDIS_CLUSTER_TLS).toBe('off');
    expect(redisWhere(config)).toEqual({
      target: 'cluster node-a:7000,10.0.0.8:6379,::1:7002',
      key: 'REDIS_CLUSTER_NODES',
    });
  });

  it.each([
    ['WebConfig', WebConfig, web],
    ['WorkerConfig', WorkerConfig, worker],
    ['CliQueueConfig', CliQueueConfig, {}],
  ] as const)('%s refuses a cluster and Sentinel together, naming both', (_, schema, base) => {
    const error = configError(() =>
      loadConfig(schema, {
        ...base,
        REDIS_CLUSTER_NODES: 'a:7000',
        REDIS_SENTINELS: 'b:26379',
        REDIS_SENTINEL_NAME: 'm',
      }),
    );
    expect(error.message).toContain('REDIS_CLUSTER_NODES (a Redis Cluster or Sentinel, not both');
  });

  it.each([
    ['WebConfig', WebConfig, web],
    ['WorkerConfig', WorkerConfig, worker],
    ['ConsoleConfig', ConsoleConfig, consoleKeys],
    ['CliQueueConfig', CliQueueConfig, {}],
    ['CliRejectedConfig', CliRejectedConfig, {}],
    ['CliRoutesConfig', CliRoutesConfig, { ROUTES_FILE: 'routes.yaml' }],
  ] as const)(
    '%s makes QUEUE_NAME a hash tag on a cluster only: one Redis keeps its key names',
    (_, schema, base) => {
      const single = loadConfig(schema, { ...base, QUEUE_NAME: 'svc' });
      expect(single.QUEUE_NAME).toBe('svc');
      const cluster = loadConfig(schema, { ...base, QUEUE_NAME: 'svc', REDIS_CLUSTER_NODES: 'a' });
      expect(cluster.QUEUE_NAME).toBe('{svc}');
    },
  );

  it('names each queue made from a tagged one as a tag of its own, so the queues can spread', () => {
    expect(routeQueueName('{svc}', 'hook')).toBe('{svc-route-hook}');
    expect(institutionQueueName('{svc}', 'ALPHA')).toBe('{svc-inst-ALPHA}');
    // One Redis: as before.
    expect(routeQueueName('svc', 'hook')).toBe('svc-route-hook');
    expect(institutionQueueName('svc', 'ALPHA')).toBe('svc-inst-ALPHA');
  });
});
