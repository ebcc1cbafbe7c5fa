import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { workerUnderTest } from './support/worker-harness';
import type { WorkerUnderTest } from './support/worker-harness';

const INSTITUTION = '01SVC_INST';

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

function countOf(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe('job_end worker', () => {
  let sut: WorkerUnderTest;
  afterEach(async () => {
    await sut.close();
  });

  it('stores an import run’s records as MARCXML with their count, in exactly two API calls', async () => {
    sut = await workerUnderTest();
    const instanceId = await sut.runJob('S7781', 40);
    const event = await sut.jobEndEvent(instanceId);
    const jobId = await sut.enqueue(event);
    sut.startWorker();

    const job = await sut.settled(jobId);

    expect(await job.isCompleted()).toBe(true);
    const file = join(
      sut.recordsDir,
      INSTITUTION,
      'S7781',
      instanceId,
      'TOTAL_RECORDS_IMPORTED.xml',
    );
    expect(await filesUnder(sut.recordsDir)).toEqual([
      `${INSTITUTION}/S7781/${instanceId}/TOTAL_RECORDS_IMPORTED.xml`,
    ]);
    expect(countOf(await readFile(file, 'utf8'), '<record>')).toBe(40);
    expect(sut.proxy.calls()).toEqual([
      `GET /svcws/v1/conf/jobs/S7781/instances/${instanceId}`,
      `GET /svcws/v1/conf/jobs/S7781/instances/${instanceId}/download`,
    ]);
    const summary = sut.log.lines().find((line) => line.msg === 'job_end: records stored');
    expect(summary).toMatchObject({
      eventId: event.id,
      platformJobId: 'S7781',
      jobName: 'Import MARC records',
      instanceId,
      jobStatus: 'COMPLETED_SUCCESS',
      records: 40,
      file,
      apiCalls: 2,
    });
    expect(summary?.bytes).toBeGreaterThan(0);
    expect(summary?.durationMs).toEqual(expect.any(Number));
    // The platform sends its counters as strings ("40"); the line has them as numbers.
    const fetched = sut.log.lines().find((line) => line.msg === 'job instance fetched');
    expect(fetched).toMatchObject({
      platformJobId: 'S7781',
      jobStatus: 'COMPLETED_SUCCESS',
      counters: { TOTAL_RECORDS_IMPORTED: 40, RECORDS_REJECTED: 0 },
    });
  });

  it('fetches the instance with job id ALL when the event carries only its id and name', async () => {
    sut = await workerUnderTest();
    const instanceId = await sut.runJob('S7781', 5);
    const jobId = await sut.enqueue({
      id: '4410021',
      action: 'JOB_END',
      time: '2024-11-06T10:15:30.000Z',
      job_instance: { id: instanceId, name: 'Import MARC records - 11/06/2024 10:14' },
    });
    sut.startWorker();

    const job = await sut.settled(jobId);

    expect(await job.isCompleted()).toBe(true);
    expect(sut.proxy.calls()).toEqual([
      `GET /svcws/v1/conf/jobs/ALL/instances/${instanceId}`,
      `GET /svcws/v1/conf/jobs/S7781/instances/${instanceId}/download`,
    ]);
    expect(await filesUnder(sut.recordsDir)).toEqual([
      `unknown-institution/S7781/${instanceId}/TOTAL_RECORDS_IMPORTED.xml`,
    ]);
  });

  it('makes one API call for a job that is not a metadata import, and stores nothing', async () => {
    sut = await workerUnderTest();
    const instanceId = await sut.runJob('S8120', 30);
    const jobId = await sut.enqueue(await sut.jobEndEvent(instanceId));
    sut.startWorker();

    const job = await sut.settled(jobId);

    expect(await job.isCompleted()).toBe(true);
    expect(sut.proxy.calls()).toEqual([`GET /svcws/v1/conf/jobs/S8120/instances/${instanceId}`]);
    expect(await filesUnder(sut.recordsDir)).toEqual([]);
    expect(sut.log.lines()).toContainEqual(
      expect.objectContaining({
        msg: 'job_end: nothing to download',
        reason: 'not a metadata-import job',
        apiCalls: 1,
      }),
    );
  });

  it('makes one API call for an import that loaded nothing', async () => {
    sut = await workerUnderTest();
    const instanceId = await sut.runJob('S7783', 30);
    const jobId = await sut.enqueue(await sut.jobEndEvent(instanceId));
    sut.startWorker();

    await sut.settled(jobId);

    expect(sut.proxy.calls()).toHaveLength(1);
    expect(await filesUnder(sut.recordsDir)).toEqual([]);
  });

  it('stores ISO 2709 as .mrc when DOWNLOAD_FORMAT is BINARY, counting the records', async () => {
    sut = await workerUnderTest({ worker: { DOWNLOAD_FORMAT: 'BINARY' } });
    const instanceId = await sut.runJob('S7781', 12);
    const jobId = await sut.enqueue(await sut.jobEndEvent(instanceId));
    sut.startWorker();

    const job = await sut.settled(jobId);

    const file = join(
      sut.recordsDir,
      INSTITUTION,
      'S7781',
      instanceId,
      'TOTAL_RECORDS_IMPORTED.mrc',
    );
    const bytes = await readFile(file);
    expect(bytes.filter((byte) => byte === 0x1d)).toHaveLength(12);
    expect(job.returnvalue).toMatchObject({ files: [{ records: 12, stored: true }] });
  });

  it('downloads each wanted line type that has records, into its own file', async () => {
    sut = await workerUnderTest({
      worker: { DOWNLOAD_LINE_TYPES: 'TOTAL_RECORDS_IMPORTED,NEW_RECORDS,RECORDS_REJECTED' },
    });
    const instanceId = await sut.runJob('S7781', 10);
    const jobId = await sut.enqueue(await sut.jobEndEvent(instanceId));
    sut.startWorker();

    await sut.settled(jobId);

    // RECORDS_REJECTED is 0 for a successful run: no call is spent on it.
    expect(await filesUnder(sut.recordsDir)).toEqual([
      `${INSTITUTION}/S7781/${instanceId}/NEW_RECORDS.xml`,
      `${INSTITUTION}/S7781/${instanceId}/TOTAL_RECORDS_IMPORTED.xml`,
    ]);
    expect(sut.proxy.calls()).toHaveLength(3);
  });

  it('downloads once when the same instance arrives in a second event', async () => {
    sut = await workerUnderTest();
    const instanceId = await sut.runJob('S7781', 8);
    const first = await sut.jobEndEvent(instanceId);
    const second = await sut.jobEndEvent(instanceId);
    sut.startWorker();

    const firstJob = await sut.settled(await sut.enqueue(first));
    const secondJob = await sut.settled(await sut.enqueue(second));
    // The listener's duplicate of the first event is no new job at all.
    const again = await sut.enqueue(first);

    expect(again).toBe(firstJob.id);
    expect(await secondJob.isCompleted()).toBe(true);
    expect(sut.proxy.calls().filter((call) => call.endsWith('/download'))).toHaveLength(1);
    // The instance's job_end was taken up by the first event: the second does no work at all.
    expect(secondJob.returnvalue).toEqual({ outcome: 'duplicate', instanceId });
    expect(sut.proxy.calls()).toHaveLength(2);
    expect(await filesUnder(sut.recordsDir)).toHaveLength(1);
  });
});
