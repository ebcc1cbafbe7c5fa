import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSvcClient } from '@svcws/client';
import type { SvcClient } from '@svcws/client';
import { startSandboxProcess } from '@svcws/sandbox';
import type { SandboxProcess } from '@svcws/sandbox';

const RECORD_TERMINATOR = 0x1d;
const MB = 1024 * 1024;
/** ~100 MB of ISO 2709 (about 450 bytes a record) and of MARCXML (about 1.2 kB a record). */
const BINARY_RECORDS = 230_000;
const XML_RECORDS = 85_000;
const RSS_BUDGET = 64 * MB;

/** An ended S7781 instance of `records` records, run through the admin route. */
async function importInstance(server: SandboxProcess, client: SvcClient, records: number) {
  const run = await fetch(`${server.url}/sandbox/jobs/S7781/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ records, duration_ms: 0 }),
  });
  const id = ((await run.json()) as { job_instance: { id: string } }).job_instance.id;
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const instance = await client.request('GET /conf/jobs/{job_id}/instances/{instance_id}', {
      path: { job_id: 'S7781', instance_id: id },
    });
    if (instance.end_time !== undefined) return id;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`instance ${id} did not end`);
}

/** Peak RSS growth of this process while `work` runs, sampled every 10 ms. */
async function rssGrowthDuring<T>(work: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, growth: peak - before };
  } finally {
    clearInterval(timer);
  }
}

/** Occurrences of `needle` in the file, read as a stream (a match may straddle two chunks). */
async function countIn(path: string, needle: Buffer): Promise<number> {
  let found = 0;
  let carry = Buffer.alloc(0);
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    const window = Buffer.concat([carry, chunk]);
    let at = window.indexOf(needle);
    while (at !== -1) {
      found += 1;
      at = window.indexOf(needle, at + needle.length);
    }
    carry = window.subarray(Math.max(0, window.length - needle.length + 1));
  }
  return found;
}

async function tail(path: string, length: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const buffer = Buffer.alloc(Math.min(length, size));
    await file.read(buffer, 0, buffer.length, size - buffer.length);
    return buffer;
  } finally {
    await file.close();
  }
}

describe('client against sandbox: a large streamed download with bounded memory', () => {
  let server: SandboxProcess;
  let client: SvcClient;
  let dir: string;
  beforeAll(async () => {
    server = await startSandboxProcess({ SANDBOX_RATE_PER_SECOND: '1000' });
    client = createSvcClient({ baseUrl: server.url, apiKey: 'sandbox-key', maxRetries: 0 });
    dir = await mkdtemp(join(tmpdir(), 'client-large-download-'));
  });
  afterAll(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('downloads ~100 MB of ISO 2709 to a file: every byte, every record, last byte 0x1D, RSS growth under 64 MB', async () => {
    const id = await importInstance(server, client, BINARY_RECORDS);
    const to = join(dir, `${id}.mrc`);
    const started = performance.now();
    const { result, growth } = await rssGrowthDuring(() =>
      client.download({ job_id: 'S7781', instance_id: id, download_format: 'BINARY' }, { to }),
    );
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `large download BINARY: ${String(result.bytes)} bytes (${(result.bytes / MB).toFixed(1)} MB) in ${seconds.toFixed(2)} s, test-process RSS growth ${(growth / MB).toFixed(1)} MB\n`,
    );
    expect(result.bytes).toBeGreaterThan(95 * MB);
    expect((await stat(to)).size).toBe(result.bytes);
    expect((await tail(to, 1))[0]).toBe(RECORD_TERMINATOR);
    expect(await countIn(to, Buffer.from([RECORD_TERMINATOR]))).toBe(BINARY_RECORDS);
    expect(growth).toBeLessThan(RSS_BUDGET);
  });

  it('downloads ~100 MB of MARCXML to a file: a complete collection, RSS growth under 64 MB', async () => {
    const id = await importInstance(server, client, XML_RECORDS);
    const to = join(dir, `${id}.xml`);
    const started = performance.now();
    const { result, growth } = await rssGrowthDuring(() =>
      client.download({ job_id: 'S7781', instance_id: id, download_format: 'XML' }, { to }),
    );
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `large download XML: ${String(result.bytes)} bytes (${(result.bytes / MB).toFixed(1)} MB) in ${seconds.toFixed(2)} s, test-process RSS growth ${(growth / MB).toFixed(1)} MB\n`,
    );
    expect(result.bytes).toBeGreaterThan(95 * MB);
    expect((await stat(to)).size).toBe(result.bytes);
    expect((await tail(to, 64)).toString('utf8').trimEnd().endsWith('</collection>')).toBe(true);
    expect(await countIn(to, Buffer.from('</record>'))).toBe(XML_RECORDS);
    expect(growth).toBeLessThan(RSS_BUDGET);
  });
});
