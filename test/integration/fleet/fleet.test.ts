import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { createSandbox } from '@svcws/sandbox';
import type { RunningSandbox, Sandbox } from '@svcws/sandbox';
import { createLogger } from '../../../src/logger';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import { institutionQueueName } from '../../../src/institutions/institution-queue-name';
import { routeQueueName } from '../../../src/routes/route-queue-name';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import { spawnWorker } from '../worker/support/child-process';
import type { ChildWorker } from '../worker/support/child-process';

const PER_MEMBER = 24;
const RECORDS = 3000; // ~3.6 MB per file: a download is under way when a worker is killed

interface Member {
  code: string;
  secret: string;
  key: string;
  sandbox: Sandbox;
  running: RunningSandbox;
  overlap: OverlapProxy;
  queue: Queue;
}

/**
 * A pass-through proxy that holds each answer 250 ms and records, per job instance, the most calls
 * in flight at once.
 */
interface OverlapProxy {
  url: string;
  maxInFlight(): number;
  close(): Promise<void>;
}

async function startOverlapProxy(target: string): Promise<OverlapProxy> {
  const upstream = new URL(target);
  const inFlight = new Map<string, number>();
  let max = 0;
  const server = http.createServer((req, res) => {
    const instance = /\/instances\/(\d+)/.exec(req.url ?? '')?.[1];
    if (instance !== undefined) {
      const now = (inFlight.get(instance) ?? 0) + 1;
      inFlight.set(instance, now);
      max = Math.max(max, now);
      let done = false;
      const end = (): void => {
        if (done) return;
        done = true;
        inFlight.set(instance, (inFlight.get(instance) ?? 1) - 1);
      };
      res.once('close', end);
    }
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        // Held a little, so a run lasts long enough to be cut off by the SIGKILL.
        answer.pause();
        setTimeout(() => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        }, 250);
      },
    );
    forward.on('error', () => res.destroy());
    res.once('close', () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    maxInFlight: () => max,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('a fleet: 2 listeners and 2 workers on one Redis, one of each SIGKILLed mid-run', () => {
  const base = uniqueQueueName('fleet');
  const members: Member[] = [];
  const children: ChildWorker[] = [];
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-fleet-'));
    for (const [index, code] of ['01AAA_INST', '01BBB_INST'].entries()) {
      const key = `key-of-member-${String(index)}`;
      const sandbox = createSandbox({
        logger: createLogger({ level: 'silent', name: 'sandbox' }),
        config: {
          SANDBOX_JOB_DURATION_MS: 0,
          SANDBOX_API_KEYS: [key],
          SANDBOX_INSTITUTION_CODE: code,
          SANDBOX_RECORD_COUNT: RECORDS,
          SANDBOX_RATE_PER_SECOND: 10_000,
          SANDBOX_SEED: 100 + index,
        },
      });
      const running = await sandbox.start(0);
      const overlap = await startOverlapProxy(running.url);
      const queue = new Queue(institutionQueueName(base, code), {
        connection: { url: TEST_REDIS_URL },
      });
      const secret = `secret-of-member-${String(index)}-fleet`;
      members.push({ code, secret, key, sandbox, running, overlap, queue });
    }
    await writeFile(
      join(dir, 'institutions.yaml'),
      `institutions:\n${members
        .map(
          (m) =>
            `  - code: ${m.code}\n    webhookSecret: ${m.secret}\n    apiKey: ${m.key}\n` +
            `    baseUrl: ${m.overlap.url}\n    ratePerSecond: 200\n`,
        )
        .join('')}`,
    );
    await writeFile(
      join(dir, 'routes.yaml'),
      `routes:\n  - name: archive\n    to: { file: { dir: ${join(dir, 'archive')} } }\n`,
    );
  });
  afterAll(async () => {
    for (const child of children) {
      if (child.child.exitCode === null && child.child.signalCode === null) {
        child.child.kill('SIGKILL');
      }
      await child.exited();
    }
    for (const member of members) {
      await member.queue.close();
      await obliterateQueue(member.queue.name);
      await member.overlap.close();
      await member.running.close();
    }
    await obliterateQueue(routeQueueName(base, 'archive'));
    await obliterateQueue(base);
    await rm(dir, { recursive: true, force: true });
  });

  const env = (): Record<string, string> => ({
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_NAME: base,
    INSTITUTIONS_FILE: join(dir, 'institutions.yaml'),
    ROUTES_FILE: join(dir, 'routes.yaml'),
    RECORDS_DIR: join(dir, 'records'),
    WORKER_CONCURRENCY: '3',
    WORKER_METRICS_PORT: '0',
    PORT: '0',
    TEST_LOCK_MS: '3000',
    TEST_STALLED_MS: '1000',
  });

  async function startListener(): Promise<{ child: ChildWorker; url: string }> {
    const child = spawnWorker('src/bin/web.ts', env());
    children.push(child);
    const ready = await child.waitForLine((line) => line.msg === 'listener ready');
    return { child, url: `http://127.0.0.1:${String(ready.port)}` };
  }

  async function startWorker(): Promise<ChildWorker> {
    const child = spawnWorker('test/integration/worker/support/worker-child.ts', env());
    children.push(child);
    await child.waitForLine((line) => line.msg === 'worker ready');
    return child;
  }

  /** The member's platform ends an import run; its job_end event, as the platform would send it. */
  async function jobEndBody(member: Member): Promise<{ id: string; body: string }> {
    const job = member.sandbox.jobs().job('S7781');
    if (!job) throw new Error('no S7781');
    const instance = member.sandbox.jobs().run(job, { submittedBy: 'sandbox', durationMs: 0 });
    while (!instance.end) await new Promise((resolve) => setTimeout(resolve, 2));
    const post = () =>
      fetch(`${member.running.url}/sandbox/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'job_end', instance_id: instance.id }),
      });
    // A kept-alive socket the sandbox closed as it was reused (timers fire late on a busy
    // machine) fails the fetch; the sandbox only builds the event, so asking again is harmless.
    const answer = await post().catch(post);
    const { event } = (await answer.json()) as { event: { id: string } };
    return { id: event.id, body: JSON.stringify(event) };
  }

  /** Posts to one listener; a listener that is gone is skipped as a load balancer would. */
  async function deliver(urls: string[], first: number, member: Member, body: string) {
    for (let i = 0; i < urls.length; i += 1) {
      const url = urls[(first + i) % urls.length] ?? '';
      try {
        const answer = await fetch(`${url}/webhooks/${member.code}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-svc-signature': signWebhookBody(member.secret, body),
          },
          body,
          signal: AbortSignal.timeout(5000),
        });
        if (answer.status === 200) return true;
      } catch {
        // connection refused or reset: the next listener
      }
    }
    return false;
  }

  /** Event ids whose run the worker began (instance fetched) and has not finished (stored). */
  function inFlight(child: ChildWorker | undefined): unknown[] {
    const lines = child?.lines() ?? [];
    const of = (msg: string): unknown[] =>
      lines.filter((line) => line.msg === msg).map((line) => line.eventId);
    const stored = new Set(of('job_end: records stored'));
    return of('job instance fetched').filter((id) => !stored.has(id));
  }

  it('processes every acknowledged event once, with one complete file each and every route delivery made', async () => {
    const listeners = await Promise.all([startListener(), startListener()]);
    const workers = await Promise.all([startWorker(), startWorker()]);
    const urls = listeners.map((listener) => listener.url);

    const acknowledged: { member: Member; id: string }[] = [];
    let killedAt = -1;
    for (let n = 0; n < PER_MEMBER * 2; n += 1) {
      const member = members[n % 2] as Member;
      const { id, body } = await jobEndBody(member);
      if (await deliver(urls, n, member, body)) acknowledged.push({ member, id });
      if (n === Math.floor(PER_MEMBER * 0.75)) {
        // Mid-run, while the first worker has a download under way.
        const until = Date.now() + 10_000;
        while (inFlight(workers[0]).length === 0 && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        listeners[0]?.child.child.kill('SIGKILL');
        workers[0]?.child.kill('SIGKILL');
        killedAt = n;
      }
    }
    expect(killedAt).toBeGreaterThan(0);
    // Every delivery found a listener: the one left answered for the one killed.
    expect(acknowledged).toHaveLength(PER_MEMBER * 2);

    const started = Date.now();
    for (const { member, id } of acknowledged) {
      for (;;) {
        const state = await member.queue.getJobState(`evt-${id}`);
        if (state === 'completed') break;
        expect(state).not.toBe('failed');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    // The killed worker left runs cut off; the other worker took them over (checked above).
    const cutOff = inFlight(workers[0]);
    expect(cutOff.length).toBeGreaterThan(0);
    process.stdout.write(
      `fleet: ${String(acknowledged.length)} acknowledged, all processed ${String(Date.now() - started)} ms after the last delivery; ${String(cutOff.length)} runs cut off by the SIGKILL and taken over\n`,
    );

    // One complete file per event, in its member's folder; no two runs of one instance at once.
    for (const member of members) {
      const root = join(dir, 'records', member.code, 'S7781');
      const instances = await readdir(root);
      expect(instances).toHaveLength(PER_MEMBER);
      for (const instance of instances) {
        const text = await readFile(join(root, instance, 'TOTAL_RECORDS_IMPORTED.xml'), 'utf8');
        expect(text.split('<record>').length - 1).toBe(RECORDS);
        expect(text.endsWith('</collection>\n')).toBe(true);
      }
      expect(member.overlap.maxInFlight()).toBe(1);
    }

    // Every route delivery made: each acknowledged event is in the archive.
    const archive = join(dir, 'archive');
    const deadline = Date.now() + 20_000;
    let archived = new Set<string>();
    while (Date.now() < deadline) {
      const files = await readdir(archive).catch(() => [] as string[]);
      const lines = (
        await Promise.all(files.map((file) => readFile(join(archive, file), 'utf8')))
      ).flatMap((text) => text.split('\n').filter((line) => line !== ''));
      archived = new Set(
        lines.map((line) => {
          const event = JSON.parse(line) as { id: string; institution?: { value?: string } };
          return `${event.institution?.value ?? ''}/${event.id}`;
        }),
      );
      if (acknowledged.every(({ member, id }) => archived.has(`${member.code}/${id}`))) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(acknowledged.filter(({ member, id }) => !archived.has(`${member.code}/${id}`))).toEqual(
      [],
    );
  });
});
