import { XMLParser } from 'fast-xml-parser';
import { startSandbox } from '../../src/testing/start-sandbox';
import type { SandboxUnderTest } from '../../src/testing/start-sandbox';
import { startSandboxProcess } from '../../src/testing/start-sandbox-process';
import { waitFor } from '../support/wait-for';

const RECORD_TERMINATOR = 0x1d;
const FIELD_TERMINATOR = 0x1e;

describe('sandbox download of an import instance (spec §4.3)', () => {
  let sut: SandboxUnderTest;
  afterEach(async () => {
    await sut.close();
  });

  /** Runs the import job through the admin route and waits for its end. */
  const importedInstance = async (records: number): Promise<string> => {
    const run = await sut.admin('POST', '/jobs/S7781/run', { records, duration_ms: 0 });
    const id = (run.json.job_instance as { id: string }).id;
    await waitFor(async () => {
      const reply = await sut.api('GET', `/conf/jobs/S7781/instances/${id}`);
      return (reply.json.status as { value: string }).value === 'COMPLETED_SUCCESS'
        ? true
        : undefined;
    });
    return id;
  };
  const downloadUrl = (id: string, query: string): string =>
    `${sut.url}/svcws/v1/conf/jobs/S7781/instances/${id}/download?apikey=test-key&${query}`;

  it('sends a MARCXML collection with as many records as TOTAL_RECORDS_IMPORTED', async () => {
    sut = await startSandbox();
    const id = await importedInstance(30);
    const response = await fetch(downloadUrl(id, 'download_format=XML'));
    expect(response.headers.get('content-type')).toContain('application/xml');
    const parsed = new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(
      await response.text(),
    ) as {
      collection: {
        '@_xmlns': string;
        record: {
          leader: string;
          controlfield: { '#text': string }[];
          datafield: { '@_tag': string }[];
        }[];
      };
    };
    expect(parsed.collection['@_xmlns']).toBe('http://www.loc.gov/MARC21/slim');
    expect(parsed.collection.record).toHaveLength(30);
    const first = parsed.collection.record[0];
    expect(first?.leader).toHaveLength(24);
    expect(first?.datafield.map((field) => field['@_tag'])).toEqual(
      expect.arrayContaining(['020', '100', '245', '264', '300', '650']),
    );
  });

  it('sends ISO 2709 records whose leaders give their length and base address', async () => {
    sut = await startSandbox();
    const id = await importedInstance(40);
    const response = await fetch(downloadUrl(id, 'download_format=BINARY'));
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    const body = Buffer.from(await response.arrayBuffer());
    let start = 0;
    let records = 0;
    while (start < body.length) {
      const length = Number(body.subarray(start, start + 5).toString('latin1'));
      const baseAddress = Number(body.subarray(start + 12, start + 17).toString('latin1'));
      expect(body[start + length - 1]).toBe(RECORD_TERMINATOR);
      expect(body[start + baseAddress - 1]).toBe(FIELD_TERMINATOR);
      start += length;
      records += 1;
    }
    expect(records).toBe(40);
    expect(body.filter((byte) => byte === RECORD_TERMINATOR)).toHaveLength(40);
  });

  it('refuses a line type the instance does not have, an unknown format, a non-import job (40166410)', async () => {
    sut = await startSandbox();
    const id = await importedInstance(1);
    expect(
      (await sut.api('GET', `/conf/jobs/S7781/instances/${id}/download?line_type=NOPE`)).errorCode,
    ).toBe('40166410');
    expect(
      (await sut.api('GET', `/conf/jobs/S7781/instances/${id}/download?download_format=CSV`))
        .errorCode,
    ).toBe('40166410');
    const exports = (await sut.api('GET', '/conf/jobs/S8120/instances')).json.job_instance as {
      id: string;
    }[];
    expect(
      (await sut.api('GET', `/conf/jobs/S8120/instances/${exports[0]?.id ?? ''}/download`))
        .errorCode,
    ).toBe('40166410');
    const rejected = await sut.api(
      'GET',
      `/conf/jobs/S7781/instances/${id}/download?line_type=RECORDS_REJECTED`,
    );
    expect(rejected.text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<collection xmlns="http://www.loc.gov/MARC21/slim">\n</collection>\n',
    );
  });
});

describe('sandbox download at size', () => {
  it('streams a large download chunked, the server process holding far less than the body', async () => {
    const server = await startSandboxProcess({ SANDBOX_RATE_PER_SECOND: '1000' });
    try {
      const records = 220_000;
      const run = await fetch(`${server.url}/sandbox/jobs/S7781/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ records, duration_ms: 0 }),
      });
      const id = ((await run.json()) as { job_instance: { id: string } }).job_instance.id;
      await new Promise((resolve) => setTimeout(resolve, 200));
      const rssBefore = server.rss();
      let peakRss = rssBefore;
      const started = Date.now();
      const response = await fetch(
        `${server.url}/svcws/v1/conf/jobs/S7781/instances/${id}/download?apikey=sandbox-key&download_format=BINARY`,
      );
      expect(response.headers.get('content-length')).toBeNull();
      expect(response.headers.get('transfer-encoding')).toBe('chunked');
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let bytes = 0;
      let terminators = 0;
      let sampledAt = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.length;
        for (
          let at = value.indexOf(RECORD_TERMINATOR);
          at !== -1;
          at = value.indexOf(RECORD_TERMINATOR, at + 1)
        ) {
          terminators += 1;
        }
        if (bytes - sampledAt > 1_000_000) {
          sampledAt = bytes;
          peakRss = Math.max(peakRss, server.rss());
        }
      }
      const seconds = (Date.now() - started) / 1000;
      expect(terminators).toBe(records);
      expect(bytes).toBeGreaterThan(95_000_000);
      expect(peakRss - rssBefore).toBeLessThan(bytes / 3);
      process.stdout.write(
        `download: ${String(bytes)} bytes in ${seconds.toFixed(2)} s; server RSS ${String(Math.round(rssBefore / 1e6))} MB → peak ${String(Math.round(peakRss / 1e6))} MB\n`,
      );
    } finally {
      await server.stop();
    }
  });
});
