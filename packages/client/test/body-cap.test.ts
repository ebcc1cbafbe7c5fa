import { Writable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { createSvcClient } from '../src';
import { failureOf, startServer } from './recording-server';
import type { RecordingServer } from './recording-server';

const MB = 1024 * 1024;
const HUGE = 300 * MB;

/**
 * Writes a `bytes`-long JSON list page in 1 MB chunks, only as fast as the client reads, and
 * counts what it wrote: a client that stops reading at its cap leaves most of it unwritten.
 */
function sendHugePage(response: ServerResponse, bytes: number, written: { bytes: number }) {
  response.writeHead(200, { 'content-type': 'application/json', 'x-svc-api-remaining': '5000' });
  const chunk = Buffer.alloc(MB, 'x');
  response.write('{"job":[{"id":"');
  let left = bytes;
  const more = (): void => {
    while (left > 0 && !response.destroyed) {
      left -= chunk.length;
      written.bytes += chunk.length;
      if (!response.write(chunk)) {
        response.once('drain', more);
        return;
      }
    }
    if (!response.destroyed) response.end('"}],"total_record_count":1}');
  };
  more();
}

describe('a 2xx answer is read up to its family’s cap', () => {
  let server: RecordingServer;
  const written = { bytes: 0 };
  let mode: 'chunked' | 'declared' | 'download' = 'chunked';

  beforeAll(async () => {
    server = await startServer((_request, response) => {
      if (mode === 'chunked') return sendHugePage(response, HUGE, written);
      if (mode === 'declared') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': HUGE });
        response.write('{"job":[');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.end(Buffer.alloc(4 * MB, 'r'));
    });
  });
  beforeEach(() => {
    written.bytes = 0;
  });
  afterAll(() => server.close());

  const client = () =>
    createSvcClient({
      baseUrl: server.baseUrl,
      apiKey: 'k',
      maxRetries: 2,
      maxBodyBytes: { list: 2 * MB, document: MB },
    });

  it('fails a 300 MB list page with BODY_TOO_LARGE, naming the operation and the cap, having read little of it', async () => {
    mode = 'chunked';

    const error = await failureOf(client().paginate.pages('GET /conf/jobs', { query: {} }).next());

    expect(error).toMatchObject({
      code: 'BODY_TOO_LARGE',
      operation: 'listJobs',
      limitBytes: 2 * MB,
      status: 200,
      retryable: false,
      attempts: 1,
    });
    expect(error.message).toContain('listJobs');
    expect(error.message).toContain(String(2 * MB));
    // Socket buffers hold a few MB besides what the client read; 300 MB would have been sent.
    expect(written.bytes).toBeLessThan(64 * MB);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses an answer whose Content-Length is past the cap without reading it', async () => {
    mode = 'declared';

    const error = await failureOf(
      client().request('GET /conf/jobs/{job_id}', { path: { job_id: 'S1' } }),
    );

    expect(error).toMatchObject({ code: 'BODY_TOO_LARGE', operation: 'getJob', limitBytes: MB });
  });

  it('does not cap a download, which streams to its target', async () => {
    mode = 'download';
    let received = 0;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        callback();
      },
    });

    const result = await client().download(
      { job_id: 'S1', instance_id: 'I1', line_type: 'TOTAL_RECORDS_IMPORTED' },
      { to: sink },
    );

    expect(result.bytes).toBe(4 * MB);
    expect(received).toBe(4 * MB);
  });
});
