import { mkdtemp, readdir, rm, stat, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { createSvcClient } from '../src';
import { errorBody, failureOf, sendJson, startServer } from './recording-server';
import type { RecordingServer } from './recording-server';

const MB = 1024 * 1024;
const LARGE = 300 * MB;
const CHUNK = Buffer.alloc(64 * 1024, 'M');

/** Writes `total` bytes in chunks, waiting for `drain`: the body exists only on the wire. */
async function streamBytes(
  response: ServerResponse,
  total: number,
  breakAt?: number,
  gate?: { at: number; until: () => Promise<boolean> },
): Promise<void> {
  response.writeHead(200, { 'content-type': 'application/octet-stream' });
  let sent = 0;
  let gated = gate;
  while (sent < total) {
    if (breakAt !== undefined && sent >= breakAt) {
      response.socket?.destroy();
      return;
    }
    if (gated !== undefined && sent >= gated.at) {
      // The rest only once the receiver shows it has what came so far: else the body breaks off.
      if (!(await gated.until())) {
        response.socket?.destroy();
        return;
      }
      gated = undefined;
    }
    const size = Math.min(CHUNK.length, total - sent);
    sent += size;
    if (!response.write(size === CHUNK.length ? CHUNK : CHUNK.subarray(0, size))) {
      await new Promise<void>((resolve) => response.once('drain', resolve));
    }
  }
  response.end();
}

/** What the server sends for each instance id. */
const plans: Record<string, (response: ServerResponse) => void | Promise<void>> = {
  large: (response) =>
    streamBytes(response, LARGE, undefined, { at: LARGE / 2, until: () => fileReaches(LARGE / 3) }),
  small: (response) => {
    response.writeHead(200, { 'content-type': 'application/xml' });
    response.end('<collection xmlns="http://www.loc.gov/MARC21/slim"><record/></collection>');
  },
  broken: (response) => streamBytes(response, 20 * MB, 5 * MB),
  missing: (response) => sendJson(response, 400, errorBody('402218', 'Invalid instance id')),
};

/**
 * The directory the large download writes into (set by its test; the file is written under a
 * temporary name there and renamed once whole), and whether a file in it reaches `size` soon.
 */
let largeDir = '';
async function fileReaches(size: number): Promise<boolean> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const sizes = await Promise.all(
      (await readdir(largeDir)).map((name) =>
        stat(join(largeDir, name)).then(
          (found) => found.size,
          () => 0,
        ),
      ),
    );
    if (sizes.some((one) => one >= size)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

describe('download', () => {
  let server: RecordingServer;
  let dir: string;
  beforeAll(async () => {
    server = await startServer((request, response) => {
      // /svcws/v1/conf/jobs/{job_id}/instances/{instance_id}/download
      const plan = plans[request.pathname.split('/')[7] ?? ''];
      if (plan) return plan(response);
      return sendJson(response, 404, {});
    });
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-download-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const client = () =>
    createSvcClient({ baseUrl: server.baseUrl, apiKey: 'dl-key', timeoutMs: 5000, maxRetries: 0 });

  it('streams 300 MB to a file as it arrives, not once the body is whole', async () => {
    const target = join(dir, 'records.mrc');
    largeDir = dir;
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);

    // The server stops at 150 MB until the file on disk holds 100 MB, and breaks the body off if it
    // never does: a client that held the body before writing it would fail here.
    const result = await client()
      .download(
        { job_id: 'S7781', instance_id: 'large', download_format: 'BINARY' },
        { to: target },
      )
      .finally(() => clearInterval(sampler));

    // For the reader; the figure to watch is the bench's (docs/benchmarks.md): RSS depends on when
    // GC runs, which a loaded machine delays.
    process.stdout.write(
      `download of ${LARGE / MB} MB: RSS growth ${((peak - baseline) / MB).toFixed(1)} MB\n`,
    );
    expect(result).toEqual({ bytes: LARGE, contentType: 'application/octet-stream' });
    expect((await stat(target)).size).toBe(LARGE);
    expect(server.requests[0]?.query.get('download_format')).toBe('BINARY');
  });

  it('streams into a writable the caller gives', async () => {
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk);
        callback();
      },
    });

    const result = await client().download(
      { job_id: 'S7781', instance_id: 'small', line_type: 'TOTAL_RECORDS_IMPORTED' },
      { to: sink },
    );

    expect(Buffer.concat(chunks).toString()).toContain('<collection');
    expect(result.contentType).toBe('application/xml');
    expect(result.bytes).toBe(Buffer.concat(chunks).length);
  });

  it('leaves no file, not even a partial one, when the transfer breaks', async () => {
    const target = join(dir, 'records.mrc');

    const error = await failureOf(
      client().download({ job_id: 'S7781', instance_id: 'broken' }, { to: target }),
    );

    expect(error).toMatchObject({
      code: 'DOWNLOAD_FAILED',
      retryable: true,
      operation: 'downloadJobInstance',
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps an existing file untouched when the transfer breaks', async () => {
    const target = join(dir, 'records.mrc');
    await writeFile(target, 'previous complete download');

    await failureOf(client().download({ job_id: 'S7781', instance_id: 'broken' }, { to: target }));

    expect(await readFile(target, 'utf8')).toBe('previous complete download');
    expect(await readdir(dir)).toEqual(['records.mrc']);
  });

  it('creates no file when the platform refuses the download', async () => {
    const target = join(dir, 'records.mrc');

    const error = await failureOf(
      client().download({ job_id: 'S7781', instance_id: 'missing' }, { to: target }),
    );

    expect(error).toMatchObject({ status: 400, code: '402218', meaning: 'invalid instance id' });
    expect(await readdir(dir)).toEqual([]);
  });

  it('hands out the body as a stream the caller reads', async () => {
    const { body, contentType } = await client().downloadStream({
      job_id: 'S7781',
      instance_id: 'small',
    });

    let text = '';
    for await (const chunk of body) text += String(chunk);

    expect(contentType).toBe('application/xml');
    expect(text).toContain('<record/>');
  });

  it('refuses to read a download as a document through request()', async () => {
    const attempt = client().request('GET /conf/jobs/{job_id}/instances/{instance_id}/download', {
      path: { job_id: 'S7781', instance_id: 'large' },
    });

    await expect(attempt).rejects.toMatchObject({ name: 'SvcParamError', parameter: 'route' });
  });

  it('stops and removes the partial file when the caller aborts', async () => {
    const target = join(dir, 'records.mrc');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);

    const error = await failureOf(
      client().download(
        { job_id: 'S7781', instance_id: 'large' },
        { to: target, signal: controller.signal },
      ),
    );

    expect(error).toMatchObject({ code: 'ABORTED', retryable: false });
    expect(await readdir(dir)).toEqual([]);
  });
});
