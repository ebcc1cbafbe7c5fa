import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox } from '@svcws/sandbox';
import type { RunningSandbox, Sandbox } from '@svcws/sandbox';
import { createLogger } from '../../../../src/logger';
import { signWebhookBody } from '../../../../src/signature/sign-webhook-body';
import { startHttpReceiver } from '../../../component/routes/support/http-receiver';
import type { HttpReceiver } from '../../../component/routes/support/http-receiver';
import type { ShippedLine } from '../../../helpers/logql/evaluate-logql';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../../helpers/redis';
import { mixedKinds } from '../../pipeline/support/mixed-kinds';
import { spawnWorker } from '../../worker/support/child-process';
import type { ChildWorker } from '../../worker/support/child-process';
import { noteLogLine } from '../../../helpers/log-reference/note-log-line';

const SECRET = 'logged-run-secret-of-some-length';
/** Two institutions in turn, as a single-institution listener takes any event's own code. */
const INSTITUTIONS = ['LIB_A', 'LIB_B'] as const;
/** Routes: every event to `archive` and `hook`; loans also to `broken`, which answers 503. */
const BROKEN_ACTIONS = ['loan'];

/** What the run sent and what its destinations saw: the figures the log panels must equal. */
export interface RunTruth {
  /** Signed events answered 2xx, by `institution action`. */
  readonly received: ReadonlyMap<string, number>;
  /** Deliveries refused, by the outcome the listener names. */
  readonly refused: ReadonlyMap<string, number>;
  /** Events each route's destination confirmed. */
  readonly delivered: ReadonlyMap<string, number>;
  /** The broken route's failed attempts: one retrying and one failed per loan. */
  readonly brokenLoans: number;
  /** job_end events and the records their downloads stored, by institution. */
  readonly downloads: ReadonlyMap<string, { runs: number; records: number }>;
  /** The CLI's operator actions, by the action (`pause`, `resume`). */
  readonly operatorActions: ReadonlyMap<string, number>;
}

export interface LoggedRun {
  readonly truth: RunTruth;
  /** Every line of the listener, the worker and the CLI, labelled as the shipping recipes label them. */
  readonly lines: readonly ShippedLine[];
  close(): Promise<void>;
}

interface Parts {
  dir: string;
  queueName: string;
  sandbox: Sandbox;
  running: RunningSandbox;
  hook: HttpReceiver;
  broken: HttpReceiver;
  children: ChildWorker[];
}

/**
 * The listener and the worker as processes (LOG_LEVEL info, as deployed), fed signed events of six
 * kinds for two institutions, refusals of three kinds, and job_ends from the sandbox; routed to a
 * file, a receiver that takes everything and one that answers 503. Ends once every destination
 * has what it should and both processes stopped (their lines flushed).
 */
export async function loggedRun(events: number): Promise<LoggedRun> {
  const parts = await startParts();
  try {
    const { web, port, routesFile } = await startProcesses(parts);
    const sent = await sendEverything(parts, port, events);
    await settled(parts, sent);
    const cli = await operatorActions(parts, routesFile);
    for (const child of parts.children) child.child.kill('SIGTERM');
    await Promise.all(parts.children.map((child) => child.exited()));
    const lines = [
      ...shipped('web', web.lines()),
      ...shipped('worker', (parts.children[1] ?? web).lines()),
      ...shipped('cli', cli.lines),
    ];
    return {
      truth: { ...sent, operatorActions: cli.actions },
      lines,
      close: () => closeParts(parts),
    };
  } catch (error) {
    await closeParts(parts);
    throw error;
  }
}

/** As Alloy and Vector label a line (deploy/alloy, deploy/vector): process, and the institution field. */
function shipped(process: string, lines: readonly Record<string, unknown>[]): ShippedLine[] {
  return lines.map((line) => ({
    labels: { process, institution: typeof line.institution === 'string' ? line.institution : '' },
    line,
  }));
}

async function startParts(): Promise<Parts> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-logged-run-'));
  const sandbox = createSandbox({
    logger: createLogger({ level: 'silent', name: 'sandbox' }),
    config: { SANDBOX_JOB_DURATION_MS: 0 },
  });
  return {
    dir,
    queueName: uniqueQueueName('logged'),
    sandbox,
    running: await sandbox.start(0),
    hook: await startHttpReceiver(),
    broken: await startHttpReceiver(503),
    children: [],
  };
}

async function closeParts(parts: Parts): Promise<void> {
  for (const child of parts.children) {
    if (child.child.exitCode === null && child.child.signalCode === null)
      child.child.kill('SIGKILL');
    await child.exited();
  }
  for (const name of ['', '-route-archive', '-route-hook', '-route-broken'])
    await obliterateQueue(`${parts.queueName}${name}`);
  await parts.hook.close();
  await parts.broken.close();
  await parts.running.close();
  await rm(parts.dir, { recursive: true, force: true });
}

async function startProcesses(
  parts: Parts,
): Promise<{ web: ChildWorker; port: number; routesFile: string }> {
  const routesFile = join(parts.dir, 'routes.yaml');
  await writeFile(
    routesFile,
    [
      'routes:',
      `  - { name: archive, to: { file: { dir: "${join(parts.dir, 'archive')}" } } }`,
      `  - { name: hook, to: { http: { url: "${parts.hook.url}" } } }`,
      `  - name: broken`,
      `    match: { action: [${BROKEN_ACTIONS.join(', ')}] }`,
      `    to: { http: { url: "${parts.broken.url}" } }`,
      `    retry: { attempts: 2, backoffMs: 100 }`,
      // Every loan fails here, each attempt counted: no circuit holds them back meanwhile.
      `    circuit: off`,
      '',
    ].join('\n'),
  );
  const common = { REDIS_URL: TEST_REDIS_URL, QUEUE_NAME: parts.queueName, LOG_LEVEL: 'info' };
  const web = spawnWorker('src/bin/web.ts', { ...common, PORT: '0', WEBHOOK_SECRET: SECRET });
  const worker = spawnWorker('src/bin/worker.ts', {
    ...common,
    SVC_BASE_URL: parts.running.url,
    SVC_API_KEY: 'sandbox-key',
    RECORDS_DIR: join(parts.dir, 'records'),
    WORKER_METRICS_PORT: '0',
    ROUTES_FILE: routesFile,
    RECONCILE_INTERVAL_SECONDS: '0',
  });
  parts.children.push(web, worker);
  const ready = await web.waitForLine((line) => line.msg === 'listener ready');
  await worker.waitForLine((line) => line.msg === 'worker ready');
  return { web, port: Number(ready.port), routesFile };
}

/** `routes pause hook` and `routes resume hook` through the CLI: its JSON lines are on stderr. */
async function operatorActions(
  parts: Parts,
  routesFile: string,
): Promise<{ lines: Record<string, unknown>[]; actions: Map<string, number> }> {
  const env = {
    ...process.env,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_NAME: parts.queueName,
    ROUTES_FILE: routesFile,
    LOG_LEVEL: 'info',
  };
  const lines: Record<string, unknown>[] = [];
  const actions = new Map<string, number>();
  for (const verb of ['pause', 'resume']) {
    const { stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/bin/cli.ts', 'routes', verb, 'hook'],
      { cwd: join(__dirname, '../../../..'), env },
    );
    for (const text of stderr.split('\n').filter((one) => one.startsWith('{'))) {
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      noteLogLine(line);
    }
    bump(actions, verb);
  }
  return { lines, actions };
}

async function post(port: number, path: string, body: string, signature: string): Promise<number> {
  const answer = await fetch(`http://127.0.0.1:${String(port)}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Svc-Signature': signature },
    body,
  });
  await answer.arrayBuffer();
  return answer.status;
}

const bump = (map: Map<string, number>, key: string, by = 1): void => {
  map.set(key, (map.get(key) ?? 0) + by);
};

async function sendEverything(
  parts: Parts,
  port: number,
  events: number,
): Promise<Omit<RunTruth, 'operatorActions'>> {
  const kinds = mixedKinds();
  const received = new Map<string, number>();
  let brokenLoans = 0;
  for (let n = 0; n < events; n += 1) {
    const institution = INSTITUTIONS[n % INSTITUTIONS.length] ?? 'LIB_A';
    const id = `7${String(n).padStart(5, '0')}`;
    const body = JSON.stringify({
      ...(JSON.parse(kinds.bodyOf(id, n)) as Record<string, unknown>),
      institution: { value: institution },
    });
    const status = await post(port, '/webhooks', body, signWebhookBody(SECRET, body));
    if (status !== 200) throw new Error(`event ${id} answered ${String(status)}`);
    const action = kinds.actionOf.get(id) ?? '';
    bump(received, `${institution} ${action}`);
    if (BROKEN_ACTIONS.includes(action)) brokenLoans += 1;
  }
  const refused = await sendRefusals(port);
  const downloads = await sendJobEnds(parts, port, received);
  const delivered = new Map([
    ['archive', sum(received)],
    ['hook', sum(received)],
  ]);
  return { received, refused, delivered, brokenLoans, downloads };
}

/** Three bad signatures, two signed bodies that are not JSON (invalid_event), two posts to a wrong path. */
async function sendRefusals(port: number): Promise<Map<string, number>> {
  const refused = new Map<string, number>();
  for (let n = 0; n < 3; n += 1) {
    expect(await post(port, '/webhooks', `{"id":"bad${String(n)}"}`, 'bm90IGEgc2lnbmF0dXJl')).toBe(
      401,
    );
    bump(refused, 'bad_signature');
  }
  for (let n = 0; n < 2; n += 1) {
    const body = `not json ${String(n)}`;
    expect(await post(port, '/webhooks', body, signWebhookBody(SECRET, body))).toBe(400);
    bump(refused, 'invalid_event');
  }
  for (let n = 0; n < 2; n += 1) {
    expect(await post(port, '/nowhere', '{}', 'x')).toBe(404);
    bump(refused, 'not_found');
  }
  return refused;
}

/** Two job_ends per institution, of imports the sandbox ran; `received` counts them too. */
async function sendJobEnds(
  parts: Parts,
  port: number,
  received: Map<string, number>,
): Promise<Map<string, { runs: number; records: number }>> {
  const downloads = new Map<string, { runs: number; records: number }>();
  const job = parts.sandbox.jobs().job('S7781');
  if (job === undefined) throw new Error('no S7781 in the sandbox');
  for (const [n, institution] of [...INSTITUTIONS, ...INSTITUTIONS].entries()) {
    const records = 10 + n;
    const instance = parts.sandbox
      .jobs()
      .run(job, { submittedBy: 'sandbox', records, durationMs: 0 });
    while (!instance.end) await new Promise((resolve) => setTimeout(resolve, 5));
    const made = await fetch(`${parts.running.url}/sandbox/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'job_end', instance_id: instance.id }),
    });
    const { event } = (await made.json()) as { event: Record<string, unknown> };
    const body = JSON.stringify({ ...event, institution: { value: institution } });
    expect(await post(port, '/webhooks', body, signWebhookBody(SECRET, body))).toBe(200);
    bump(received, `${institution} job_end`);
    const so_far = downloads.get(institution) ?? { runs: 0, records: 0 };
    downloads.set(institution, { runs: so_far.runs + 1, records: so_far.records + records });
  }
  return downloads;
}

function sum(map: ReadonlyMap<string, number>): number {
  return [...map.values()].reduce((total, one) => total + one, 0);
}

/** Until the file and both receivers have what they should, and the worker stored each job_end. */
async function settled(parts: Parts, truth: Omit<RunTruth, 'operatorActions'>): Promise<void> {
  const worker = parts.children[1];
  const jobEnds = sum(new Map([...truth.downloads].map(([key, one]) => [key, one.runs])));
  const until = Date.now() + 120_000;
  for (;;) {
    const archived = await readFile(
      join(parts.dir, 'archive', `${new Date().toISOString().slice(0, 10)}.jsonl`),
      'utf8',
    ).catch(() => '');
    const stored = (worker?.lines() ?? []).filter((line) => line.msg === 'job_end: records stored');
    const failed = (worker?.lines() ?? []).filter(
      (line) => line.route === 'broken' && line.outcome === 'failed',
    );
    const done =
      archived.split('\n').filter((line) => line !== '').length ===
        truth.delivered.get('archive') &&
      parts.hook.accepted.length === truth.delivered.get('hook') &&
      stored.length === jobEnds &&
      failed.length === truth.brokenLoans;
    if (done) return;
    if (Date.now() > until) {
      throw new Error(
        `not settled in 2 minutes: archive ${String(archived.split('\n').length - 1)}, hook ${String(parts.hook.accepted.length)}, job_ends ${String(stored.length)}, broken failed ${String(failed.length)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
