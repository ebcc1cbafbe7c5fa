import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, mkdtemp, readdir, readFile, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { runCli } from '../../src/cli/run-cli';
import { captureIo } from '../component/cli/cli-io-capture';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../helpers/history-database';
import { TEST_HISTORY_KEY } from '../helpers/history-events';
import { TEST_REDIS_URL } from '../helpers/redis';
import { startPrivateCluster } from '../helpers/private-cluster';
import type { PrivateCluster } from '../helpers/private-cluster';
import { noteLinesOf } from '../helpers/log-reference/note-log-line';

const root = path.join(__dirname, '../..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** From the start of the process to its first line on stdout. */
  firstLineMs: number;
}

function runTsx(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const started = performance.now();
    let firstLineMs = Number.POSITIVE_INFINITY;
    const child = execFile(
      path.join(root, 'node_modules/.bin/tsx'),
      args,
      { cwd: root, env: { ...process.env, ...env }, timeout: 300_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr, firstLineMs });
      },
    );
    child.stdout?.once('data', () => {
      firstLineMs = performance.now() - started;
    });
  });
}

function runDemo(env: Record<string, string>): Promise<Run> {
  return runTsx(['scripts/demo.ts'], env);
}

/** Keys of one demo run left in Redis (its queue name holds a random part of its own). */
async function keysOf(queueName: string): Promise<string[]> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `*${queueName}*`, 'COUNT', 1000);
      keys.push(...found);
      cursor = next;
    } while (cursor !== '0');
    return keys;
  } finally {
    await redis.quit();
  }
}

/** The demo with --watch as a child: its output so far, a wait for a line, and its exit. */
function watchDemo(env: Record<string, string>) {
  const child = spawn(path.join(root, 'node_modules/.bin/tsx'), ['scripts/demo.ts', '--watch'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  noteLinesOf(child.stdout);
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const waitFor = async (pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = pattern.exec(stdout);
      if (found !== null) return found;
      if (Date.now() > deadline || child.exitCode !== null) {
        throw new Error(`no ${String(pattern)} in the demo's output:\n${stdout}\n${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return { child, exited, waitFor, output: () => ({ stdout, stderr }) };
}

// The demo's history runs in PGlite, whose WebAssembly takes seconds to start on a loaded machine:
// deadlines, not clocks, so a run beside a busy machine ends by its conditions.
jest.setTimeout(400_000);

const quick = { DEMO_RECORDS: '7', DEMO_JOB_DURATION_MS: '200', DEMO_TIMEOUT_MS: '120000' };

describe('npm run demo', () => {
  // One run serves the first three tests; each checks one thing it must do.
  let run: Run;
  // What tsx alone takes to print a line on this machine now: the demo may add at most a second.
  let bare: Run;
  beforeAll(async () => {
    bare = await runTsx(['-e', "process.stdout.write('ready\\n')"], {});
    run = await runDemo({ ...quick, REDIS_URL: TEST_REDIS_URL });
  });

  it('runs the whole path and reports the records stored, then exits 0', async () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    for (const step of [
      /✓ listener registered with the platform: it echoed the challenge/,
      /✓ import job S7781 started through the API: instance \d+/,
      /✓ webhook arrived: job_end event \d+ \(json, [\d.]+ kB\)/,
      /✓ signature verified, event queued as evt-\d+/,
      /✓ instance \d+ fetched: S7781 "Import MARC records" COMPLETED_SUCCESS \(TOTAL_RECORDS_IMPORTED 7/,
      /✓ records stored: 7 records, [\d.]+ kB → \S+TOTAL_RECORDS_IMPORTED\.xml/,
      /✓ file complete on disk/,
      /7 records \([\d.]+ kB\) stored by the worker in .+ with 2 API calls\./,
    ]) {
      expect(run.stdout).toMatch(step);
    }
    const file = /records stored: .* → (\S+)/.exec(run.stdout)?.[1] ?? '';
    const xml = await readFile(file, 'utf8');
    expect(xml.match(/<record[\s>]/g)).toHaveLength(7);
    // The routed delivery: narrated, and its line in the archive the demo's routes file names.
    const eventId = /webhook arrived: job_end event (\d+)/.exec(run.stdout)?.[1] ?? '';
    const archiveDir = /Routes\s+\S+: every event → (\S+) /.exec(run.stdout)?.[1] ?? '';
    expect(run.stdout).toMatch(
      new RegExp(`✓ routed: event ${eventId} → route archive \\(file \\S+\\), confirmed in`),
    );
    const days = (await readdir(archiveDir)).filter((name) => name.endsWith('.jsonl'));
    expect(days.length).toBeGreaterThan(0);
    const archived = (
      await Promise.all(days.map((day) => readFile(path.join(archiveDir, day), 'utf8')))
    )
      .join('')
      .trim()
      .split('\n')
      .map((archivedLine) => JSON.parse(archivedLine) as { id: string; action: string });
    expect(archived).toEqual([expect.objectContaining({ id: eventId, action: 'job_end' })]);
    // The event's journey, read back from the embedded history.
    const journey = run.stdout.slice(run.stdout.indexOf(`History of event ${eventId}`));
    expect(journey).toMatch(
      /received: job_end from 01SVC_INST\n.* {2}queued by the listener\n.* {2}taken by a worker \(run 1\)\n[\s\S]*route archive: attempt 1 delivered in \d+ ms/,
    );
    expect(journey).toContain(`processed: job_end stored → ${file} (7 records, `);
    expect(journey).toMatch(/processed: job_end stored[\s\S]*\n.* {2}finished: completed\n/);
    const log = /Logs\s+(\S+)/.exec(run.stdout)?.[1] ?? '';
    expect((await stat(log)).size).toBeGreaterThan(0);
    expect(await readFile(log, 'utf8')).toContain('"msg":"job_end: records stored"');
  });

  it('suggests no history command that cannot work: its PGlite history is its own process alone', () => {
    expect(run.stdout).toMatch(
      /History of event \d+ \(kept in this process only; with DATABASE_URL and HISTORY_KEY set/,
    );
    expect(run.stdout).not.toMatch(/history show \d+/);
  });

  it('keeps the history at DATABASE_URL when given: its suggested history show answers after it', async () => {
    const schema = uniqueSchema('demo');
    const env = {
      DATABASE_URL: TEST_DATABASE_URL,
      HISTORY_KEY: TEST_HISTORY_KEY,
      HISTORY_SCHEMA: schema,
    };
    try {
      const kept = await runDemo({ ...quick, REDIS_URL: TEST_REDIS_URL, ...env });
      expect(kept.code).toBe(0);
      const suggested = /History of event (\d+) \(npm run events -- history show (\d+)\):/.exec(
        kept.stdout,
      );
      const eventId = suggested?.[2] ?? '';
      expect(eventId).toBe(suggested?.[1]);
      const io = captureIo({ ...env, REDIS_URL: TEST_REDIS_URL });
      expect(await runCli(['history', 'show', eventId], io)).toBe(0);
      expect(io.stderr()).toBe('');
      expect(io.stdout()).toContain(eventId);
    } finally {
      await dropSchema(schema);
    }
  });

  it('says what it is doing from its first second', () => {
    expect(run.stdout).toMatch(/^svcws demo: .*\n\n\s+\+0\.\d\d s {2}… loading the sandbox/);
    // Its first line comes before the product is loaded, not after: what it adds to tsx's own
    // first line is less than the loading it then reports (both slow down alike on a busy machine).
    const loadedAt = /\+(\d+\.\d+) s {2}… looking for Redis/.exec(run.stdout)?.[1];
    expect(loadedAt).toBeDefined();
    expect(run.firstLineMs - bare.firstLineMs).toBeLessThan(Number(loadedAt) * 1000);
  });

  it('leaves no key of its run in Redis and logs no warning, its shutdown included', async () => {
    const queueName = /queue (demo-[0-9a-f]{8})/.exec(run.stdout)?.[1] ?? '';
    const log = /Logs\s+(\S+)/.exec(run.stdout)?.[1] ?? '';
    const lines = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string });

    expect(queueName).not.toBe('');
    expect(await keysOf(queueName)).toEqual([]);
    expect(lines.some((line) => line.msg === 'job_end: records stored')).toBe(true);
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
    expect(run.stdout).toMatch(/Done in .*Queue and history keys removed from Redis/);
  });

  it('with --watch starts the console with a token for this run, and stops cleanly on SIGINT', async () => {
    const demo = watchDemo({ ...quick, REDIS_URL: TEST_REDIS_URL });
    try {
      const [, signInUrl = '', token = ''] = await demo.waitFor(
        /Console: (http:\/\/127\.0\.0\.1:\d+\/sign-in)\n.*paste it in the form\): (\S+)\n/,
        240_000,
      );
      await demo.waitFor(/Watching \(Ctrl-C stops everything\)/, 60_000);
      const base = new URL(signInUrl).origin;

      const api = await fetch(`${base}/api/v1/overview`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const signIn = await fetch(signInUrl, {
        method: 'POST',
        body: new URLSearchParams({ token }),
        redirect: 'manual',
      });
      const wrong = await fetch(`${base}/api/v1/overview`, {
        headers: { authorization: 'Bearer not-the-token' },
      });

      expect(api.status).toBe(200);
      expect(((await api.json()) as { history: string }).history).toBe('on');
      expect(signIn.status).toBe(303);
      expect(signIn.headers.get('set-cookie')).toMatch(/HttpOnly/i);
      expect(wrong.status).toBe(401);
      // Only the token's hash ever reached disk, and not for longer than the console's start.
      expect(token).toMatch(/^[\w-]{40,}$/);
      const logs = /Logs\s+(\S+)/.exec(demo.output().stdout)?.[1] ?? '';
      await expect(access(path.join(path.dirname(logs), 'console-tokens.yaml'))).rejects.toThrow();
      expect(await readFile(logs, 'utf8')).not.toContain(token);
    } finally {
      demo.child.kill('SIGINT');
    }
    const code = await demo.exited;

    expect(code).toBe(0);
    expect(demo.output().stdout).toMatch(
      /Stopping…\n\nDone in .*Queue and history keys removed from Redis/,
    );
    expect(demo.output().stderr).toBe('');
  });

  it('starts a private redis-server when REDIS_URL does not answer, and stops it', async () => {
    const run = await runDemo({
      ...quick,
      REDIS_URL: 'redis://127.0.0.1:1',
      DEMO_WEBHOOK_FORMAT: 'xml',
    });

    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Redis\s+redis:\/\/127\.0\.0\.1:\d+\s+\(private \S*redis-server/);
    expect(run.stdout).toMatch(/webhook arrived: job_end event \d+ \(xml,/);
    expect(run.stdout).toContain('7 records');
  });

  it('says how to get a Redis when none answers and none is on PATH (exit 1)', async () => {
    // A PATH with node only (node and redis-server may share /usr/bin).
    const bin = await mkdtemp(path.join(tmpdir(), 'demo-path-'));
    await symlink(process.execPath, path.join(bin, 'node'));

    const run = await runDemo({ REDIS_URL: 'redis://127.0.0.1:1', PATH: bin });
    await rm(bin, { recursive: true });

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'No Redis answers at 127.0.0.1:1 and there is no redis-server on PATH.',
    );
    expect(run.stderr).toContain('apt-get install redis-server');
    expect(run.stderr).toContain('REDIS_URL=');
  });
});

describe('npm run demo on a Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  let cluster: PrivateCluster;
  beforeAll(async () => {
    cluster = await startPrivateCluster();
  });
  afterAll(async () => {
    await cluster.close();
  });

  /** Keys of one demo run on any node of the cluster. */
  async function clusterKeysOf(queueName: string): Promise<string[]> {
    const keys: string[] = [];
    for (const { port } of cluster.nodes) {
      const node = cluster.nodeClient(port);
      try {
        keys.push(...(await node.keys(`*${queueName}*`)));
      } finally {
        node.disconnect();
      }
    }
    return keys;
  }

  it('runs the whole path on the cluster it names (REDIS_URL unused), then leaves no key of its run on any node', async () => {
    const run = await runDemo({
      ...quick,
      REDIS_CLUSTER_NODES: cluster.seeds,
      REDIS_URL: 'redis://127.0.0.1:1',
    });

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Redis\s+cluster 127\.0\.0\.1:\d+,\S+\s+\(REDIS_CLUSTER_NODES\)/);
    expect(run.stdout).toMatch(/✓ signature verified, event queued as evt-\d+/);
    expect(run.stdout).toMatch(/✓ records stored: 7 records/);
    expect(run.stdout).toMatch(/✓ routed: event \d+ → route archive/);
    const queueName = /queue (demo-[0-9a-f]{8})/.exec(run.stdout)?.[1] ?? '';
    expect(queueName).not.toBe('');
    expect(await clusterKeysOf(queueName)).toEqual([]);
    const log = /Logs\s+(\S+)/.exec(run.stdout)?.[1] ?? '';
    const lines = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
  });

  it('says so and exits 1 when the cluster it names does not answer, instead of using another Redis', async () => {
    const run = await runDemo({ ...quick, REDIS_CLUSTER_NODES: '127.0.0.1:1' });

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No Redis Cluster answers at 127.0.0.1:1 (REDIS_CLUSTER_NODES).');
    expect(run.stdout).not.toMatch(/private \S*redis-server/);
  });
});
