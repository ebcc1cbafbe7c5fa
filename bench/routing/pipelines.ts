import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { baselineBuildDir, buildBaseline } from '../ingress/build-baseline';
import { builtScript } from '../ingress/build-servers';
import { freePort } from '../ingress/free-port';

/** The bench's own servers a pipeline runs (compiled by buildServers, or with the baseline). */
const HARNESS = [
  'bench/servers/listener-server.ts',
  'bench/servers/routing-worker.ts',
  'bench/servers/report-cpu-per-request.ts',
] as const;

/** One pipeline under load: where to post, and its two processes. */
export interface RunningPipeline {
  readonly url: string;
  readonly processes: ReadonlyMap<string, number | undefined>;
  /** CPU of further processes on the path (the history's PostgreSQL), from the phase's start. */
  cpu?(): { since(): Promise<Map<string, number>> };
  /** After a phase's last delivery (epoch ms): waits for what follows it, lines to print. */
  afterPhase?(events: number, lastDeliveryAt: number): Promise<string[]>;
  stop(): Promise<void>;
}

export interface PipelineSetup {
  readonly redisUrl: string;
  readonly amqpUrl: string;
  /** The bench's PostgreSQL, when a pipeline that needs one (usesDatabase) is in the run. */
  readonly databaseUrl: string | undefined;
  readonly secret: string;
  /** Unique per run: queue names and the RabbitMQ exchange. */
  readonly name: string;
  readonly exchange: string;
  /** Where the file route (or the peer's file) writes. */
  readonly dir: string;
}

export interface Pipeline {
  readonly name: string;
  /** It needs PostgreSQL (setup.databaseUrl): the bench starts one only for a run with it. */
  readonly usesDatabase?: boolean;
  start(setup: PipelineSetup): Promise<RunningPipeline>;
}

/**
 * Ours: the real listener and worker (listener-server.ts, routing-worker.ts) with two routes,
 * RabbitMQ (confirms) and the file archive (fsync); `build` says whose compiled code, `env` adds
 * to both processes' environment (ROUTE_INLINE=off: every delivery through its route queue;
 * REDIS_CLUSTER_NODES: both on a cluster),
 * `loans` writes the RabbitMQ route (plainLoansRoute, or shapedLoansRoute).
 */
export function ourPipeline(
  name: string,
  script: (file: string) => string,
  env: Record<string, string> = {},
  loans: LoansRoute = plainLoansRoute,
): Pipeline {
  return {
    name,
    start: async (setup) => {
      const port = await freePort();
      const listener = await startChild(
        [script('bench/servers/listener-server.ts'), 'listener', setup.name],
        /port=(\d+)/,
        { REDIS_URL: setup.redisUrl, BENCH_SECRET: setup.secret, PORT: String(port), ...env },
      );
      const routesFile = await writeRoutesFile(setup, loans);
      const worker = await startChild(
        [...profiling(name), script('bench/servers/routing-worker.ts')],
        /ready/,
        { ...workerEnv(setup, routesFile), ...env },
      ).catch(async (error: unknown) => {
        await stopChild(listener);
        throw error;
      });
      return running(`http://127.0.0.1:${String(port)}/webhooks`, listener, worker);
    },
  };
}

/** This tree's code, compiled by buildServers. */
export const currentBuild = (file: string): string => builtScript(file);

/** The code of `ref` (src/ at that ref, this tree's harness), compiled once. */
export function baselineBuild(ref: string): (file: string) => string {
  buildBaseline(ref, HARNESS);
  const dir = baselineBuildDir(ref);
  return (file) => path.join(dir, file.replace(/\.ts$/, '.js'));
}

/**
 * The one-hop peer: the typical listener (typical-listener-server.ts) and a worker that publishes
 * each job to RabbitMQ with confirms and appends it to an fsync'd file (typical-routing-worker.ts).
 */
export const peerPipeline: Pipeline = {
  name: 'one-hop peer',
  start: async (setup) => {
    const port = await freePort();
    const listener = await startChild(
      [builtScript('bench/servers/typical-listener-server.ts')],
      undefined,
      {
        REDIS_URL: setup.redisUrl,
        WEBHOOK_SECRET: setup.secret,
        QUEUE_NAME: setup.name,
        PORT: String(port),
      },
    );
    await untilListening(port);
    const worker = await startChild(
      [...profiling('peer'), builtScript('bench/servers/typical-routing-worker.ts')],
      /ready/,
      {
        REDIS_URL: setup.redisUrl,
        QUEUE_NAME: setup.name,
        AMQP_URL: setup.amqpUrl,
        PEER_EXCHANGE: setup.exchange,
        PEER_DIR: setup.dir,
        WORKER_CONCURRENCY: '64',
      },
    ).catch(async (error: unknown) => {
      await stopChild(listener);
      throw error;
    });
    return running(`http://127.0.0.1:${String(port)}/webhooks`, listener, worker);
  },
};

function running(url: string, listener: ChildProcess, worker: ChildProcess): RunningPipeline {
  return {
    url,
    processes: new Map([
      ['listener', listener.pid],
      ['worker', worker.pid],
    ]),
    stop: async () => {
      await stopChild(worker);
      await stopChild(listener);
    },
  };
}

/** One route to RabbitMQ (LOAN events, written by `loans`), one archiving every event. */
async function writeRoutesFile(setup: PipelineSetup, loans: LoansRoute): Promise<string> {
  const routesFile = path.join(setup.dir, 'routes.yaml');
  await writeFile(
    routesFile,
    [
      'routes:',
      `  - ${loans(setup)}`,
      `  - { name: archive, to: { file: { dir: "${setup.dir}" } }, concurrency: 64 }`,
      '',
    ].join('\n'),
  );
  return routesFile;
}

/** The routes file's RabbitMQ route, one line of YAML flow style. */
type LoansRoute = (setup: PipelineSetup) => string;

const amqpTo = (setup: PipelineSetup): string =>
  `to: { amqp: { url: "${setup.amqpUrl}", exchange: ${setup.exchange}, routingKey: "{action}.{event}" } }`;

/** LOAN events, the canonical event sent whole. */
const plainLoansRoute: LoansRoute = (setup) =>
  `{ name: loans, match: { action: [loan] }, ${amqpTo(setup)}, concurrency: 64 }`;

/**
 * The same route, shaped as a route of docs/routing.md would be: a `where` filter that every bench
 * event passes (post-events.ts: loan_id "2340<id>", status ACTIVE), `mask: patron`, and a small
 * JSONata `transform`. The watcher reads the event id from the message's properties, not the body;
 * the transforms keep `id` all the same, as a receiver would want it.
 */
const shapedLoansRoute =
  (transform: string): LoansRoute =>
  (setup) =>
    [
      '{ name: loans',
      'match: { action: [loan], where: { item_loan.loan_status: [ACTIVE], item_loan.loan_id: { prefix: "2340" } } }',
      `send: { mask: patron, transform: '${transform}' }`,
      amqpTo(setup),
      'concurrency: 64 }',
    ].join(', ');

/**
 * The shaped cases: a transform of plain paths and `&` (which the shaper evaluates directly,
 * src/routes/direct-transform.ts), and one calling a function, which JSONata's evaluator runs.
 */
export const shapedPipelines: readonly Pipeline[] = [
  ourPipeline(
    'ours, shaped',
    currentBuild,
    {},
    shapedLoansRoute(
      '{ "id": id, "action": action, "loan": item_loan.loan_id, "text": "Loan " & item_loan.loan_id & " (" & item_loan.loan_status & ")" }',
    ),
  ),
  ourPipeline(
    'ours, shaped, JSONata evaluator',
    currentBuild,
    {},
    shapedLoansRoute(
      '{ "id": id, "action": action, "loan": item_loan.loan_id, "text": "Loan " & item_loan.loan_id & " (" & $lowercase(item_loan.loan_status) & ")" }',
    ),
  ),
];

function workerEnv(setup: PipelineSetup, routesFile: string): Record<string, string> {
  return {
    REDIS_URL: setup.redisUrl,
    QUEUE_NAME: setup.name,
    SVC_BASE_URL: 'http://127.0.0.1:9',
    SVC_API_KEY: 'unused',
    WORKER_CONCURRENCY: '64',
    WORKER_METRICS_PORT: '0',
    ROUTES_FILE: routesFile,
    RECORDS_DIR: path.join(setup.dir, 'records'),
    LOG_LEVEL: 'info',
  };
}

/** BENCH_CPU_PROF=<dir>: the workers write a V8 CPU profile there when they stop. */
function profiling(name: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  if (dir === undefined || dir === '') return [];
  const file = `${name.replace(/[^A-Za-z0-9-]/g, '_')}-worker-${String(Date.now())}.cpuprofile`;
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${file}`];
}

/**
 * Node on `args`; resolves once stdout matches `ready` (stdout is then piped: only for processes
 * that print a line or two). Without `ready`, stdout goes to /dev/null (the typical listener's
 * one pino line per event) and the caller waits for its port.
 */
async function startChild(
  args: string[],
  ready: RegExp | undefined,
  env: Record<string, string>,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', ready === undefined ? 'ignore' : 'pipe', 'inherit'],
  });
  if (ready === undefined) return child;
  await new Promise<void>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (ready.test(text)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${String(code)}`)));
  });
  return child;
}

async function untilListening(port: number): Promise<void> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const answered = await fetch(`http://127.0.0.1:${String(port)}/`).then(
      async (answer) => {
        await answer.arrayBuffer();
        return true;
      },
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`port ${String(port)}: not listening after 30 s`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
