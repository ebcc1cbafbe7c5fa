import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Queue } from 'bullmq';
import type { RedisClient } from '../../../src/redis/redis-client';
import { Registry } from 'prom-client';
import { jobIdForEvent } from '../../../src/events/job-id-for-event';
import { closeRedis } from '../../../src/redis/close-redis';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { isCircuitOpen } from '../../../src/routes/circuit-breaker';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { StartupFileError } from '../../../src/startup/startup-file-error';
import { captureLogger } from '../../helpers/capture-logger';
import type { CapturedLogger } from '../../helpers/capture-logger';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { eventually, routeEvent } from './support/route-events';

/** A real HTTP destination on port 0 answering the n-th request with `pattern[n % length]`. */
interface PatternReceiver {
  readonly url: string;
  /** Event ids answered 2xx. */
  readonly accepted: Set<string>;
  /** Every answer given, in order. */
  readonly answers: number[];
  answerAlways(status: number): void;
  close(): Promise<void>;
}

async function startPatternReceiver(pattern: readonly number[]): Promise<PatternReceiver> {
  let statuses = pattern;
  const accepted = new Set<string>();
  const answers: number[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = statuses[answers.length % statuses.length] ?? 200;
      answers.push(status);
      if (status < 300) accepted.add(String(req.headers['x-svc-event-id']));
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/in`,
    accepted,
    answers,
    answerAlways: (status) => {
      statuses = [status];
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The longest run of failed answers. */
function longestFailedRun(answers: readonly number[]): number {
  let longest = 0;
  let run = 0;
  for (const status of answers) {
    run = status >= 300 ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

// 3 of 5 fail (60 %), never more than 2 in a row; 2 of 5 (40 %).
const SIXTY_PERCENT = [503, 503, 200, 503, 200];
const FORTY_PERCENT = [503, 200, 503, 200, 200];

describe('route circuit breaker: the failure-rate rule', () => {
  let receiver: PatternReceiver | undefined;
  let routing: Routing | undefined;
  let connection: RedisClient;
  let log: CapturedLogger;
  let registry: Registry;

  beforeEach(() => {
    log = captureLogger();
    registry = new Registry();
    connection = openWorkerConnection(TEST_REDIS_URL, log.logger);
  });
  afterEach(async () => {
    await routing?.close();
    for (const queue of routing?.queues.values() ?? []) {
      await connection.del(queue.toKey('circuit'));
      await obliterateQueue(queue.name);
    }
    routing = undefined;
    await closeRedis(connection);
    await receiver?.close();
  });

  async function start(
    pattern: readonly number[],
    circuit: string,
    attempts = 100,
  ): Promise<{ queue: Queue; receiver: PatternReceiver }> {
    const started = await startPatternReceiver(pattern);
    receiver = started;
    const { routes } = parseRoutesFile(
      `routes:
  - name: flaky
    to: { http: { url: "${started.url}" } }
    retry: { attempts: ${String(attempts)}, backoffMs: 10 }
    concurrency: 2
    circuit: ${circuit}
`,
      {},
    );
    routing = startRouting({
      connection,
      routes,
      redisUrl: TEST_REDIS_URL,
      queueName: uniqueQueueName('rate'),
      logger: log.logger,
      registry,
    });
    const queue = routing.queues.get('flaky');
    if (queue === undefined) throw new Error('no queue');
    return { queue, receiver: started };
  }

  async function fanOut(count: number): Promise<void> {
    for (let i = 0; i < count; i += 1) {
      const event = routeEvent();
      await routing?.fanOut(event, jobIdForEvent(event.id));
    }
  }

  function opened(): Record<string, unknown>[] {
    return log.lines().filter((line) => line.msg === 'route circuit opened: deliveries wait');
  }

  async function gauge(): Promise<number | undefined> {
    const metric = await registry.getSingleMetric('svcws_route_circuit_open')?.get();
    return metric?.values.find((value) => value.labels.route === 'flaky')?.value;
  }

  it('opens on 60 % failures that never reach the consecutive threshold, holds, probes, closes and drains', async () => {
    const { queue, receiver: destination } = await start(
      SIXTY_PERCENT,
      '{ failures: 10, failureRate: { percent: 50, windowSeconds: 60, minAttempts: 20 }, probeSeconds: 0.5, maxProbeSeconds: 1 }',
    );
    await fanOut(30);
    await eventually(() => isCircuitOpen(connection, queue), 'the circuit to open by its rate');
    expect(longestFailedRun(destination.answers)).toBeLessThan(10);
    expect(destination.answers.length).toBeGreaterThanOrEqual(20);
    expect(opened()).toHaveLength(1);
    expect(opened()[0]).toMatchObject({
      route: 'flaky',
      rule: 'failure rate',
      windowSeconds: 60,
    });
    expect(opened()[0]?.failedPercent).toBeGreaterThan(50);
    expect(await gauge()).toBe(1);
    expect(await queue.getFailedCount()).toBe(0);

    destination.answerAlways(200);
    await eventually(
      async () => !(await isCircuitOpen(connection, queue)),
      'a probe to close the circuit',
    );
    await eventually(() => destination.accepted.size === 30, 'every delivery to drain', 15_000);
    expect(await queue.getFailedCount()).toBe(0);
    expect(log.lines().some((line) => line.msg === 'route circuit closed')).toBe(true);
    expect(await gauge()).toBe(0);
  });

  it('stays closed below the percentage', async () => {
    const { queue, receiver: destination } = await start(
      FORTY_PERCENT,
      '{ failures: 10, failureRate: { percent: 50, minAttempts: 20 } }',
    );
    await fanOut(30);
    await eventually(() => destination.accepted.size === 30, 'every delivery', 15_000);
    // 30 deliveries at 40 %: about 50 attempts, well past minAttempts.
    expect(destination.answers.length).toBeGreaterThanOrEqual(45);
    expect(opened()).toHaveLength(0);
    expect(await isCircuitOpen(connection, queue)).toBe(false);
  });

  it('stays closed under minAttempts, however many of them failed', async () => {
    const { queue, receiver: destination } = await start(
      SIXTY_PERCENT,
      '{ failures: 10, failureRate: { percent: 50, minAttempts: 40 } }',
      2,
    );
    await fanOut(12);
    // Two attempts each at most: 24 attempts, under 40.
    await eventually(
      async () => (await queue.getCompletedCount()) + (await queue.getFailedCount()) === 12,
      'every delivery to end',
    );
    expect(destination.answers.length).toBeLessThan(40);
    expect(destination.answers.filter((status) => status >= 300).length).toBeGreaterThan(
      destination.answers.length / 2,
    );
    expect(opened()).toHaveLength(0);
    expect(await isCircuitOpen(connection, queue)).toBe(false);
  });

  it('failureRate: off leaves the consecutive rule alone', async () => {
    const { queue, receiver: destination } = await start(
      SIXTY_PERCENT,
      '{ failures: 10, failureRate: off }',
    );
    await fanOut(30);
    await eventually(() => destination.accepted.size === 30, 'every delivery', 15_000);
    expect(opened()).toHaveLength(0);
    expect(await isCircuitOpen(connection, queue)).toBe(false);
  });
});

describe('routes file: circuit.failureRate', () => {
  function circuitOf(circuit: string): unknown {
    return parseRoutesFile(
      `routes:\n  - name: hook\n    to: { http: { url: "http://127.0.0.1:1/in" } }\n    circuit: ${circuit}\n`,
      {},
    ).routes[0]?.circuit;
  }

  function problemsOf(circuit: string): readonly string[] {
    try {
      circuitOf(circuit);
    } catch (error) {
      if (error instanceof StartupFileError) return error.problems;
      throw error;
    }
    throw new Error('the routes file was accepted');
  }

  it('is on by default, and takes the defaults of what is left out', () => {
    const all = {
      failures: 10,
      failureRate: { percent: 50, windowSeconds: 60, minAttempts: 20 },
      probeSeconds: 30,
      maxProbeSeconds: 600,
    };
    expect(
      parseRoutesFile(`routes:\n  - name: hook\n    to: { file: { dir: /tmp/x } }\n`, {}).routes[0]
        ?.circuit,
    ).toEqual(all);
    expect(circuitOf('{ failures: 5 }')).toEqual({ ...all, failures: 5 });
    expect(circuitOf('{ failureRate: { percent: 80 } }')).toEqual({
      ...all,
      failureRate: { percent: 80, windowSeconds: 60, minAttempts: 20 },
    });
    expect(circuitOf('{ failureRate: { windowSeconds: 30 } }')).toEqual({
      ...all,
      failureRate: { percent: 50, windowSeconds: 30, minAttempts: 20 },
    });
    expect(circuitOf('{ failureRate: off }')).toEqual({ ...all, failureRate: 'off' });
  });

  it('refuses a bad setting, naming the route and the field', () => {
    const [percent] = problemsOf('{ failureRate: { percent: 150 } }');
    expect(percent).toContain('hook');
    expect(percent).toContain('circuit.failureRate.percent');
    const [notOff] = problemsOf('{ failureRate: on }');
    expect(notOff).toContain('route "hook": circuit: off, or {');
    const [unknown] = problemsOf('{ failureRate: { percent: 50, window: 30 } }');
    expect(unknown).toContain('circuit.failureRate');
  });
});
