import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisClient } from '../../../src/redis/redis-client';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { DESTINATION_ADAPTERS } from '../../../src/routes/destinations';
import { loadRoutesFile, parseRoutesFile } from '../../../src/routes/load-routes-file';
import { previewDelivery } from '../../../src/routes/preview-delivery';
import { StartupFileError } from '../../../src/startup/startup-file-error';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { captureLogger } from '../../helpers/capture-logger';
import { createMemoryDestination } from '../../helpers/memory-destination';
import type { MemoryDestination } from '../../helpers/memory-destination';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { eventually, routeEvent } from './support/route-events';

const ROUTES = `
routes:
  - name: loans
    match: { action: [loan] }
    to: { memory: { box: "loans-{institution}" } }
  - name: archive
    to: { file: { dir: "\${DIR}" } }
`;

function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof StartupFileError) return error.problems;
    throw error;
  }
  throw new Error('no StartupFileError was thrown');
}

describe('a destination added as one adapter record in the list', () => {
  let memory: MemoryDestination;
  let adapters: readonly [...typeof DESTINATION_ADAPTERS, MemoryDestination['adapter']];
  let dir: string;
  let routing: Routing | undefined;
  let connection: RedisClient | undefined;

  beforeEach(async () => {
    memory = createMemoryDestination(['closed']);
    adapters = [...DESTINATION_ADAPTERS, memory.adapter];
    dir = await mkdtemp(join(tmpdir(), 'svc-destination-list-'));
  });
  afterEach(async () => {
    await routing?.close();
    for (const queue of routing?.queues.values() ?? []) await obliterateQueue(queue.name);
    routing = undefined;
    if (connection !== undefined) await closeRedis(connection);
    connection = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('is read from a routes file beside the built-in ones, with its own defaults', async () => {
    const path = join(dir, 'routes.yaml');
    await writeFile(path, ROUTES);

    const { routes } = loadRoutesFile(path, { DIR: dir }, adapters);

    expect(routes.map((route) => route.to)).toEqual([
      { kind: 'memory', options: { box: 'loans-{institution}', label: 'kept in memory' } },
      { kind: 'file', options: { dir, timeoutMs: 10_000 } },
    ]);
  });

  it('is unknown to the product list, and the list it is in names it in every message', () => {
    expect(problemsOf(() => parseRoutesFile(ROUTES, { DIR: dir }))).toEqual([
      'route "loans": to: unknown destination memory (one of http, amqp, nats, redisStream, file, postgres, mqtt)',
    ]);
    const problems = problemsOf(() =>
      parseRoutesFile(
        `routes:
  - { name: a, to: { kafka: { topic: t } } }
  - { name: b, to: { memory: { box: x }, file: { dir: x } } }
  - { name: c, to: { memory: { box: "", colour: red } } }
`,
        {},
        adapters,
      ),
    );
    expect(problems).toEqual([
      'route "a": to: unknown destination kafka (one of http, amqp, nats, redisStream, file, postgres, mqtt, memory)',
      'route "b": to: exactly one destination (http, amqp, nats, redisStream, file, postgres, mqtt, memory)',
      'route "c": to.memory.box: at least 1 characters',
      'route "c": to.memory: unknown field colour',
    ]);
  });

  it('delivers an event fanned out by a route worker on Redis', async () => {
    const { routes } = parseRoutesFile(ROUTES, { DIR: dir }, adapters);
    const log = captureLogger();
    connection = openWorkerConnection(TEST_REDIS_URL, log.logger);
    routing = startRouting({
      routes,
      adapters,
      connection,
      redisUrl: TEST_REDIS_URL,
      queueName: uniqueQueueName('destination-list'),
      logger: log.logger,
    });
    const loan = routeEvent({ action: 'loan' });
    const bib = routeEvent({ action: 'bib' });

    expect(await routing.fanOut(loan, jobIdForEvent(loan.id))).toEqual(['loans', 'archive']);
    expect(await routing.fanOut(bib, jobIdForEvent(bib.id))).toEqual(['archive']);

    await eventually(() => memory.delivered('loans-01ABC_INST').length === 1, 'the delivery');
    expect(memory.delivered('loans-01ABC_INST')).toEqual([{ route: 'loans', event: loan }]);
    await eventually(
      () => log.lines().some((line) => line.msg === 'delivered' && line.route === 'loans'),
      'the delivered log line',
    );
    expect(log.lines().find((line) => line.route === 'loans')).toMatchObject({
      eventId: loan.id,
      destination: 'memory',
      target: 'memory loans-{institution}',
    });
  });

  it('shows what a delivery would send, as `routes test` does, sending nothing', () => {
    const { routes, redactSecrets } = parseRoutesFile(ROUTES, { DIR: dir }, adapters);
    const [loans] = routes;
    if (loans === undefined) throw new Error('no route');
    const event = routeEvent({ action: 'loan' });

    const preview = previewDelivery(loans, event, {
      redisUrl: TEST_REDIS_URL,
      redactSecrets,
      adapters,
    });

    expect(preview).toEqual({
      kind: 'memory',
      target: 'memory loans-{institution}',
      address: 'box loans-01ABC_INST (kept in memory)',
      headers: { route: 'loans' },
      body: JSON.stringify(event),
    });
    expect(memory.delivered('loans-01ABC_INST')).toEqual([]);
  });

  it('has its start-up check run before any route starts, naming the route and the field', () => {
    const { routes } = parseRoutesFile(
      'routes:\n  - { name: shut, to: { memory: { box: closed } } }\n',
      {},
      adapters,
    );
    const log = captureLogger();
    const open = openWorkerConnection(TEST_REDIS_URL, log.logger);
    connection = open;

    const problems = problemsOf(() =>
      startRouting({
        routes,
        adapters,
        connection: open,
        redisUrl: TEST_REDIS_URL,
        queueName: uniqueQueueName('destination-list'),
        logger: log.logger,
      }),
    );

    expect(problems).toEqual(['route "shut": to.memory.box: the box is closed']);
  });
});
