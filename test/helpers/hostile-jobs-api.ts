import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TEST_REDIS_URL } from './redis';

/**
 * How the stand-in's lists misbehave:
 * - `endless-jobs`: the job list never ends (new import jobs on every page, a count far ahead);
 * - `repeated-jobs`: the job list answers the same page whatever the offset;
 * - `endless-instances`: one import job whose instance list never ends, new finished instances on
 *   every page (each would be a recovered job_end);
 * - `dot-ids`: job ids `.`, `..`, `a/b`, `` and 500 characters beside one good job, `S1`, whose
 *   one finished instance is listed with ids `..` and `ok-1`;
 * - `huge-page`: the job list's first page is `hugeBytes` of JSON.
 */
export type HostileMode =
  'endless-jobs' | 'repeated-jobs' | 'endless-instances' | 'dot-ids' | 'huge-page';

export interface HostileJobsApi {
  readonly url: string;
  /** Requests answered so far (path and query). */
  calls(): readonly string[];
  close(): Promise<void>;
}

/** The API key the stand-in is called with (it checks none). */
export const HOSTILE_API_KEY = 'hostile-key';

/** The worker's keys that point it at `api`, with its event queue (a test adds its own keys). */
export function workerEnvAgainst(api: HostileJobsApi, queueName: string): Record<string, string> {
  return {
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_NAME: queueName,
    SVC_BASE_URL: api.url,
    SVC_API_KEY: HOSTILE_API_KEY,
  };
}

const PREFIX = '/svcws/v1';
const FINISHED = { status: { value: 'COMPLETED_SUCCESS' }, end_time: '2026-01-01T00:00:00Z' };

/** A stand-in of the jobs API (spec §4.3) that serves `mode`; every answer carries a budget. */
export async function startHostileJobsApi(
  mode: HostileMode,
  options: { remaining?: number; hugeBytes?: number | undefined } = {},
): Promise<HostileJobsApi> {
  const calls: string[] = [];
  let remaining = options.remaining ?? 1_000_000;
  const server = createServer((request, response) => {
    calls.push(request.url ?? '');
    remaining -= 1;
    response.setHeader('x-svc-api-remaining', String(remaining));
    answer(mode, request, response, options.hugeBytes ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    calls: () => [...calls],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(
  mode: HostileMode,
  request: IncomingMessage,
  response: ServerResponse,
  hugeBytes: number,
): void {
  const url = new URL(request.url ?? '/', 'http://stand-in');
  const offset = Number(url.searchParams.get('offset') ?? '0');
  const path = url.pathname.slice(PREFIX.length);
  if (mode === 'huge-page' && path === '/conf/jobs') return sendHuge(response, hugeBytes);
  if (path === '/conf/jobs') return json(response, jobPage(mode, offset));
  const instances = /^\/conf\/jobs\/([^/]+)\/instances$/.exec(path);
  if (instances) return json(response, instancePage(mode, offset));
  response.statusCode = 404;
  response.end();
}

function importJob(id: string) {
  return { id, name: `import ${id}`, category: { value: 'IMPORT' } };
}

function jobPage(mode: HostileMode, offset: number): unknown {
  if (mode === 'endless-jobs') {
    const job = Array.from({ length: 100 }, (_, index) => importJob(`J${String(offset + index)}`));
    return { job, total_record_count: offset + 1_000_000 };
  }
  if (mode === 'repeated-jobs') {
    const job = Array.from({ length: 100 }, (_, index) => importJob(`J${String(index)}`));
    return { job, total_record_count: 1_000_000 };
  }
  if (mode === 'dot-ids') {
    const odd = ['.', '..', 'a/b', '', 'x'.repeat(500), '%2e%2e'];
    return { job: [...odd.map(importJob), importJob('S1')], total_record_count: odd.length + 1 };
  }
  return { job: [importJob('S1')], total_record_count: 1 };
}

function instancePage(mode: HostileMode, offset: number): unknown {
  if (mode === 'endless-instances') {
    const job_instance = Array.from({ length: 100 }, (_, index) => ({
      id: `I${String(offset + index)}`,
      ...FINISHED,
    }));
    return { job_instance, total_record_count: offset + 1_000_000 };
  }
  if (mode === 'dot-ids') {
    const job_instance = [
      { id: '..', ...FINISHED },
      { id: 'ok-1', ...FINISHED },
    ];
    return { job_instance, total_record_count: 2 };
  }
  return { job_instance: [], total_record_count: 0 };
}

function json(response: ServerResponse, body: unknown): void {
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify(body));
}

/** `{"job":[{"id":"x…x"}]…`: one valid page `bytes` long, written in 1 MB chunks as read. */
function sendHuge(response: ServerResponse, bytes: number): void {
  response.setHeader('content-type', 'application/json');
  const head = '{"job":[{"id":"';
  const tail = '"}],"total_record_count":1}';
  const chunk = 'x'.repeat(1024 * 1024);
  let left = Math.max(0, bytes - head.length - tail.length);
  response.write(head);
  const more = (): void => {
    while (left > 0) {
      const part = left >= chunk.length ? chunk : chunk.slice(0, left);
      left -= part.length;
      if (!response.write(part)) {
        response.once('drain', more);
        return;
      }
    }
    response.end(tail);
  };
  response.on('close', () => {
    left = 0;
  });
  more();
}
