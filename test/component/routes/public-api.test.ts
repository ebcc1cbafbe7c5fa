import * as api from '../../../src';

describe('the package entry exports routing', () => {
  it('validates a routes file, names its destination options and starts routing', () => {
    const file = api.parseRoutesFile(
      'routes:\n  - { name: loans, match: { action: [LOAN] }, to: { file: { dir: "${DIR}" } } }\n',
      { DIR: '/var/archive' },
    );
    const [route] = file.routes;
    expect(route).toMatchObject({
      name: 'loans',
      match: { action: ['loan'] },
      to: { kind: 'file', options: { dir: '/var/archive' } },
    });
    expect(() => api.parseRoutesFile('routes: [{ name: x, to: { smtp: {} } }]', {})).toThrow(
      api.StartupFileError,
    );
    expect(api.RoutesFile.safeParse({ routes: [] }).success).toBe(true);
    expect(api.Route.safeParse({ name: 'all', to: { file: { dir: '/d' } } }).success).toBe(true);
    expect(api.HttpDestinationOptions.safeParse({ url: 'https://h.example.org/' }).success).toBe(
      true,
    );
    expect(api.AmqpDestinationOptions.safeParse({ url: 'amqp://h', exchange: 'x' }).success).toBe(
      true,
    );
    expect(
      api.NatsDestinationOptions.safeParse({ servers: 'nats://h', subject: 's' }).success,
    ).toBe(true);
    expect(api.RedisStreamDestinationOptions.safeParse({ stream: 's' }).success).toBe(true);
    expect(api.FileDestinationOptions.safeParse({ dir: '/d' }).success).toBe(true);
    expect(api.DESTINATION_KINDS).toEqual([
      'http',
      'amqp',
      'nats',
      'redisStream',
      'file',
      'postgres',
      'mqtt',
    ]);
    expect(api.routeQueueName('svcws-events', 'loans')).toBe('svcws-events-route-loans');
    expect(typeof api.startRouting).toBe('function');
    expect(typeof api.loadRoutesFile).toBe('function');
  });
});
