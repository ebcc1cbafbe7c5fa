import type { Readable } from 'node:stream';
import { createMarcStream } from '@svcws/sandbox';
import { JobInstance } from '@svcws/client';
import {
  createMarcRecordCounter,
  MalformedMarcError,
} from '../../../src/worker/job-end/count-marc-records';
import { createImportJobMatcher } from '../../../src/worker/job-end/import-job-matcher';
import { jobIdOfInstance } from '../../../src/worker/job-end/job-id-of-instance';
import { recordsPath, safeSegment } from '../../../src/worker/job-end/records-path';
import { recordsToDownload } from '../../../src/worker/job-end/records-to-download';

function instance(fields: Record<string, unknown>): JobInstance {
  return JobInstance.parse({ id: '1', status: { value: 'COMPLETED_SUCCESS' }, ...fields });
}

function countChunks(format: 'XML' | 'BINARY', chunks: (string | Buffer)[]): number {
  const counter = createMarcRecordCounter(format);
  for (const chunk of chunks) counter.write(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return counter.end();
}

async function countStream(format: 'XML' | 'BINARY', source: Readable, cut = 0): Promise<number> {
  const counter = createMarcRecordCounter(format);
  for await (const chunk of source as AsyncIterable<Buffer>) {
    // Split every chunk in two at an odd offset: records and UTF-8 characters cross chunks.
    const at = cut > 0 ? Math.min(cut, chunk.length) : chunk.length;
    counter.write(chunk.subarray(0, at));
    counter.write(chunk.subarray(at));
  }
  return counter.end();
}

describe('import job matcher (IMPORT_JOB_MATCH)', () => {
  const isImport = createImportJobMatcher('category=IMPORT|type=MD_IMPORT|name~import');

  it.each([
    ['the category', { category: { value: 'import' }, name: 'Load' }, true],
    ['the type', { type: { value: 'MD_IMPORT' }, name: 'Load' }, true],
    ['a word of the name', { name: 'Nightly Re-Import of vendor files' }, true],
    ['nothing', { category: { value: 'EXPORT' }, name: 'Export bibs' }, false],
  ])('matches on %s', (_what, jobInfo, expected) => {
    expect(isImport(instance({ job_info: { id: 'S1', ...jobInfo } }))).toBe(expected);
  });

  it('reads the job name from the instance name when job_info is missing', () => {
    expect(isImport(instance({ name: 'Import MARC records - 11/06/2024 10:14' }))).toBe(true);
  });

  it('refuses a malformed alternative, naming it', () => {
    expect(() => createImportJobMatcher('category=IMPORT|owner=me')).toThrow(/"owner=me"/);
    expect(() => createImportJobMatcher('category=')).toThrow(RangeError);
  });
});

describe('records to download', () => {
  const options = { isImportJob: () => true, lineTypes: ['TOTAL_RECORDS_IMPORTED'] };
  const counter = (value: string) => ({
    counter: [{ type: { value: 'TOTAL_RECORDS_IMPORTED' }, value }],
  });

  it.each(['COMPLETED_SUCCESS', 'COMPLETED_WARNINGS', 'COMPLETED_FAILED'])(
    'downloads a run that ended %s with records',
    (status) => {
      const decision = recordsToDownload(
        instance({ status: { value: status }, ...counter('3') }),
        options,
      );
      expect(decision).toEqual({
        download: true,
        lineTypes: [{ lineType: 'TOTAL_RECORDS_IMPORTED', expected: 3 }],
      });
    },
  );

  it.each(['COMPLETED_NO_BULKS', 'FAILED', 'MANUAL_ABORTED'])(
    'skips a run that ended %s',
    (status) => {
      const decision = recordsToDownload(
        instance({ status: { value: status }, ...counter('3') }),
        options,
      );
      expect(decision.download).toBe(false);
    },
  );

  it.each(['QUEUED', 'PENDING', 'INITIALIZING', 'RUNNING'])(
    'asks to read a run that is still %s again later',
    (status) => {
      const decision = recordsToDownload(
        instance({ status: { value: status }, ...counter('3') }),
        options,
      );
      expect(decision).toEqual({
        download: 'later',
        reason: `the instance has not finished (status ${status})`,
      });
    },
  );

  it('skips a completed run whose counter shows no records', () => {
    expect(recordsToDownload(instance(counter('0')), options)).toEqual({
      download: false,
      reason: 'no records counted for TOTAL_RECORDS_IMPORTED',
    });
  });
});

describe('job id of an instance', () => {
  it('prefers job_info.id, then the link', () => {
    expect(jobIdOfInstance({ job_info: { id: 'S7781' }, link: 'x/conf/jobs/S1/instances/2' })).toBe(
      'S7781',
    );
    expect(
      jobIdOfInstance({ link: 'https://h/svcws/v1/conf/jobs/M123/instances/5871043560000561' }),
    ).toBe('M123');
  });

  it('gives nothing for a link without the job, or one that says ALL', () => {
    expect(jobIdOfInstance({ link: 'https://h/svcws/v1/conf/jobs/S1' })).toBeUndefined();
    expect(jobIdOfInstance({ link: 'https://h/conf/jobs/ALL/instances/5' })).toBeUndefined();
    expect(jobIdOfInstance({})).toBeUndefined();
  });
});

describe('records path', () => {
  it('builds RECORDS_DIR/<institution>/<job_id>/<instance_id>/<line_type>.<ext>', () => {
    expect(
      recordsPath('/data/records', {
        institution: '01SVC_INST',
        jobId: 'S7781',
        instanceId: '5871',
        lineType: 'TOTAL_RECORDS_IMPORTED',
        format: 'BINARY',
      }),
    ).toBe('/data/records/01SVC_INST/S7781/5871/TOTAL_RECORDS_IMPORTED.mrc');
  });

  it.each([
    ['..', '_'],
    ['.', '_'],
    ['', '_'],
    ['../../etc/passwd', '.._.._etc_passwd'],
    ['a/b\\c\0d', 'a_b_c_d'],
  ])('turns %p into the single segment %p', (raw, safe) => {
    expect(safeSegment(raw)).toBe(safe);
  });
});

describe('MARC record counter', () => {
  it('counts the sandbox’s MARCXML and ISO 2709 across awkward chunk boundaries', async () => {
    const xml = createMarcStream({ format: 'XML', count: 300, seedText: 't' });
    const iso = createMarcStream({ format: 'BINARY', count: 300, seedText: 't' });
    expect(await countStream('XML', xml, 7)).toBe(300);
    expect(await countStream('BINARY', iso, 13)).toBe(300);
  });

  it('reads MARCXML as XML: prefixes, back-to-back records, comments and CDATA', () => {
    const record = '<marc:record><marc:leader>x</marc:leader></marc:record>';
    const text =
      '<?xml version="1.0"?><marc:collection xmlns:marc="http://www.loc.gov/MARC21/slim">' +
      `${record}${record}<!-- <marc:record> --><![CDATA[<record>]]>${record}</marc:collection>`;
    expect(countChunks('XML', [text.slice(0, 50), text.slice(50)])).toBe(3);
    expect(countChunks('XML', ['<record><leader>x</leader></record>'])).toBe(1);
    expect(countChunks('XML', ['<collection/>'])).toBe(0);
  });

  it('refuses MARCXML that is cut off or not well-formed', () => {
    expect(() => countChunks('XML', ['<collection><record>'])).toThrow(MalformedMarcError);
    expect(() => countChunks('XML', ['<collection><record></collection>'])).toThrow(
      MalformedMarcError,
    );
  });

  it('refuses ISO 2709 that stops inside a record, and accepts trailing whitespace', () => {
    const record = Buffer.from('00026nam a2200025 i 4500\x1e\x1d');
    expect(countChunks('BINARY', [record, record, Buffer.from('\n')])).toBe(2);
    expect(() => countChunks('BINARY', [record, record.subarray(0, 10)])).toThrow(
      /ends inside a record \(after 1 complete records\)/,
    );
  });
});
