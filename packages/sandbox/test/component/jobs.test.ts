import { startSandbox } from '../../src/testing/start-sandbox';
import type { Reply, SandboxUnderTest } from '../../src/testing/start-sandbox';
import { waitFor } from '../support/wait-for';

interface Instance {
  id: string;
  status: { value: string };
  progress: number;
  counter: { type: { value: string }; value: string }[];
  alert: { value: string }[];
  job_info: { id: string };
}

const JOB_BODY = JSON.stringify({ id: 'S7781' });
const counterOf = (instance: Instance, type: string): string | undefined =>
  instance.counter.find((counter) => counter.type.value === type)?.value;
const instanceIdOf = (reply: Reply): string =>
  /instances\/(\d+)$/.exec((reply.json.additional_info as { link: string }).link)?.[1] ?? '';

describe('sandbox jobs (spec §4.3, §8)', () => {
  let sut: SandboxUnderTest;
  afterEach(async () => {
    await sut.close();
  });

  const submit = (
    jobId: string,
    query = 'op=run',
    body: string | null = JOB_BODY,
  ): Promise<Reply> =>
    sut.api('POST', `/conf/jobs/${jobId}?${query}`, body === null ? {} : { body });
  const instance = async (jobId: string, id: string): Promise<Instance> =>
    (await sut.api('GET', `/conf/jobs/${jobId}/instances/${id}`)).json as unknown as Instance;
  const ended = (jobId: string, id: string): Promise<Instance> =>
    waitFor(async () => {
      const current = await instance(jobId, id);
      return current.status.value.startsWith('COMPLETED') ? current : undefined;
    });

  describe('list and get', () => {
    beforeEach(async () => {
      sut = await startSandbox();
    });

    it('filters jobs by category, type and profile_id', async () => {
      const imports = (await sut.api('GET', '/conf/jobs?category=IMPORT')).json.job as {
        category: { value: string };
      }[];
      expect(imports.length).toBeGreaterThanOrEqual(3);
      expect(imports.every((job) => job.category.value === 'IMPORT')).toBe(true);
      const manual = (await sut.api('GET', '/conf/jobs?type=MANUAL')).json.job as { id: string }[];
      expect(manual.map((job) => job.id)).toEqual(['M2601', 'M2702']);
      const byProfile = await sut.api('GET', '/conf/jobs?profile_id=6127400000561');
      expect(byProfile.json).toMatchObject({ job: [{ id: 'S7781' }], total_record_count: 1 });
    });

    it('refuses an invalid category or type with 40166410', async () => {
      expect((await sut.api('GET', '/conf/jobs?category=NOPE')).errorCode).toBe('40166410');
      expect((await sut.api('GET', '/conf/jobs?type=WEEKLY')).errorCode).toBe('40166410');
      // spec §4.3: type is MANUAL, SCHEDULED or OTHER; the USERS/SIS job is a SCHEDULED one.
      expect((await sut.api('GET', '/conf/jobs?type=SIS')).errorCode).toBe('40166410');
    });

    it('gets a job, and refuses a bad id format (402215) and an unknown id (402216)', async () => {
      const job = await sut.api('GET', '/conf/jobs/S7781');
      expect(job.json).toMatchObject({
        id: 'S7781',
        category: { value: 'IMPORT' },
        type: { value: 'SCHEDULED' },
      });
      const sis = await sut.api('GET', '/conf/jobs/S8801');
      expect(sis.json).toMatchObject({
        category: { value: 'USERS' },
        type: { value: 'SCHEDULED' },
      });
      expect(sis.json).not.toHaveProperty('sis');
      expect((await sut.api('GET', '/conf/jobs/7781')).errorCode).toBe('402215');
      expect((await sut.api('GET', '/conf/jobs/S0001')).errorCode).toBe('402216');
    });
  });

  describe('submit rules', () => {
    it('refuses a missing op (402220), an unknown op (402221), a missing body (402228)', async () => {
      sut = await startSandbox({ SANDBOX_JOB_DURATION_MS: 60_000 });
      expect((await submit('S7781', '')).errorCode).toBe('402220');
      expect((await submit('S7781', 'op=stop')).errorCode).toBe('402221');
      expect((await submit('S7781', 'op=run', null)).errorCode).toBe('402228');
      expect((await submit('S7781', 'op=run', '{}')).errorCode).toBe('402228');
    });

    it('refuses a multi-task job (402231) and a run overlapping a running one (60347)', async () => {
      sut = await startSandbox({ SANDBOX_JOB_DURATION_MS: 60_000 });
      expect((await submit('M2702')).errorCode).toBe('402231');
      expect((await submit('S7781')).status).toBe(200);
      expect((await submit('S7781')).errorCode).toBe('60347');
    });

    it('refuses a fourth API job while three are running (402222)', async () => {
      sut = await startSandbox({ SANDBOX_JOB_DURATION_MS: 60_000 });
      for (const jobId of ['S7781', 'S7782', 'S8120'])
        expect((await submit(jobId)).status).toBe(200);
      expect((await submit('S8130')).errorCode).toBe('402222');
    });

    it('refuses a sixth run of the same job within the hour (402223)', async () => {
      sut = await startSandbox({ SANDBOX_JOB_DURATION_MS: 0 });
      for (let run = 0; run < 5; run += 1) {
        const reply = await submit('S7781');
        expect(reply.status).toBe(200);
        await ended('S7781', instanceIdOf(reply));
      }
      expect((await submit('S7781')).errorCode).toBe('402223');
      expect((await submit('S7782')).status).toBe(200);
    });

    it('counts every run of the job in the hour, not only API-started ones (rule 2, 402223)', async () => {
      sut = await startSandbox({ SANDBOX_JOB_DURATION_MS: 0 });
      for (let run = 0; run < 4; run += 1) {
        const started = await sut.admin('POST', '/jobs/S7781/run', {});
        expect(started.status).toBe(201);
        await ended('S7781', String((started.json.job_instance as { id: string }).id));
      }
      const fifth = await submit('S7781');
      expect(fifth.status).toBe(200);
      await ended('S7781', instanceIdOf(fifth));
      expect((await submit('S7781')).errorCode).toBe('402223');
    });

    it("refuses the PUBLISHING family's republish action and runs its other jobs (rule 3)", async () => {
      sut = await startSandbox({ SANDBOX_JOB_DURATION_MS: 60_000 });
      expect((await submit('S8131')).errorCode).toBe('402248');
      expect((await submit('S8130')).status).toBe(200);
    });
  });

  describe('instances', () => {
    it('moves a run from queued to running to completed, with counters of what it did', async () => {
      // The status before the end is read off the sandbox's clock, so a loaded machine polling
      // late cannot skip QUEUED (a tenth of the run); the end itself comes from the run's timer.
      let now = Date.now();
      sut = await startSandbox(
        { SANDBOX_JOB_DURATION_MS: 1000, SANDBOX_RECORD_COUNT: 7 },
        { clock: () => new Date(now) },
      );
      const id = instanceIdOf(await submit('S7781'));
      const seen = [(await instance('S7781', id)).status.value];
      now += 500;
      seen.push((await instance('S7781', id)).status.value);
      const final = await ended('S7781', id);
      seen.push(final.status.value);
      expect(seen).toEqual(['QUEUED', 'RUNNING', 'COMPLETED_SUCCESS']);
      expect(final.progress).toBe(100);
      expect(counterOf(final, 'TOTAL_RECORDS_IMPORTED')).toBe('7');
      expect(final.alert[0]?.value).toBe('alert_general_success');
    });

    it('ends a job configured with errors as COMPLETED_WARNINGS with rejected records', async () => {
      sut = await startSandbox({ SANDBOX_JOB_DURATION_MS: 0, SANDBOX_RECORD_COUNT: 50 });
      const final = await ended('S7782', instanceIdOf(await submit('S7782')));
      expect(final.status.value).toBe('COMPLETED_WARNINGS');
      expect(counterOf(final, 'RECORDS_REJECTED')).toBe('2');
      expect(counterOf(final, 'TOTAL_RECORDS_IMPORTED')).toBe('48');
    });

    it('filters instances by an inclusive submit_date_to, by status, and checks their formats', async () => {
      sut = await startSandbox(
        { SANDBOX_JOB_DURATION_MS: 0 },
        { clock: () => new Date('2024-11-06T23:30:00Z') },
      );
      const id = instanceIdOf(await submit('S7781'));
      await ended('S7781', id);
      const ids = async (query: string): Promise<string[]> =>
        (
          (await sut.api('GET', `/conf/jobs/S7781/instances?limit=100&${query}`)).json
            .job_instance as { id: string }[] | undefined
        )?.map((one) => one.id) ?? [];
      expect(await ids('submit_date_from=2024-11-06&submit_date_to=2024-11-06')).toEqual([id]);
      expect(await ids('submit_date_to=2024-11-05')).not.toContain(id);
      expect((await ids('submit_date_to=2024-11-05')).length).toBe(3);
      expect(await ids('status=COMPLETED_SUCCESS')).toContain(id);
      expect(await ids('status=COMPLETED_FAILED')).toEqual([]);
      expect(
        (await sut.api('GET', '/conf/jobs/S7781/instances?submit_date_to=06-11-2024')).errorCode,
      ).toBe('402217');
      expect((await sut.api('GET', '/conf/jobs/S7781/instances?status=DONE')).errorCode).toBe(
        '40166410',
      );
      expect(
        (await sut.api('GET', '/conf/jobs/S7781/instances?limit=1')).json.total_record_count,
      ).toBe(4);
    });

    it('gets an instance with job_id ALL, and refuses a bad or foreign instance id (402218)', async () => {
      sut = await startSandbox();
      const list = (await sut.api('GET', '/conf/jobs/S8120/instances')).json.job_instance as {
        id: string;
      }[];
      const id = list[0]?.id ?? '';
      expect((await sut.api('GET', `/conf/jobs/ALL/instances/${id}`)).json).toMatchObject({
        id,
        job_info: { id: 'S8120' },
      });
      expect((await sut.api('GET', `/conf/jobs/S7781/instances/${id}`)).errorCode).toBe('402218');
      expect((await sut.api('GET', '/conf/jobs/ALL/instances/abc')).errorCode).toBe('402218');
      expect((await sut.api('GET', '/conf/jobs/S7781/instances/1')).errorCode).toBe('402218');
    });

    it('lists instance events only for the USERS/SIS job (60332 otherwise)', async () => {
      sut = await startSandbox();
      const sis = (await sut.api('GET', '/conf/jobs/S8801/instances')).json.job_instance as {
        id: string;
      }[];
      const events = await sut.api(
        'GET',
        `/conf/jobs/S8801/instances/${sis[0]?.id ?? ''}/events?limit=2`,
      );
      expect(events.status).toBe(200);
      expect(events.json.event).toHaveLength(2);
      expect(events.json.total_record_count).toBeGreaterThan(2);
      const other = (await sut.api('GET', '/conf/jobs/S7781/instances')).json.job_instance as {
        id: string;
      }[];
      expect(
        (await sut.api('GET', `/conf/jobs/S7781/instances/${other[0]?.id ?? ''}/events`)).errorCode,
      ).toBe('60332');
    });
  });
});
