import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endpoints, SvcParamError } from '@svcws/client';
import {
  apiError,
  clientAgainstSandbox,
  expectRefusal,
  isoDay,
  items,
  obj,
  PARTS,
  routesOf,
  total,
  valueOf,
} from './client-vs-sandbox';
import type { ClientAgainstSandbox, Part, Route } from './client-vs-sandbox';

const RECORD_TERMINATOR = 0x1d;
const SUBMIT = 'POST /conf/jobs/{job_id}';
const JOB_BODY = { parameter: [{ name: { value: 'set_id' }, value: 'NONE' }] };

/** Runs a job through the sandbox admin route (no submit rules) and returns the instance id. */
async function adminRun(
  env: ClientAgainstSandbox,
  jobId: string,
  records: number,
): Promise<string> {
  const run = await env.sut.admin('POST', `/jobs/${jobId}/run`, { records, duration_ms: 0 });
  return String(obj(run.json.job_instance).id);
}

async function endedInstance(env: ClientAgainstSandbox, jobId: string, id: string) {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const instance = await env.request('GET /conf/jobs/{job_id}/instances/{instance_id}', {
      path: { job_id: jobId, instance_id: id },
    });
    if (instance.end_time !== undefined) return instance;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`instance ${id} did not end`);
}

/** spec §4.3 jobs, instances, download and events, and the §4.3/§8 submit rules. */
describe('client against sandbox: jobs (spec §4.3, §8)', () => {
  let env: ClientAgainstSandbox;
  let tmp: string;
  beforeAll(async () => {
    // Runs submitted through the API stay running for a minute: overlap and the thresholds.
    env = await clientAgainstSandbox({ SANDBOX_JOB_DURATION_MS: 60_000 });
    tmp = await mkdtemp(join(tmpdir(), 'client-vs-sandbox-'));
  });
  afterAll(async () => {
    await env.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it('lists the jobs, by type and by profile, and refuses an unknown category with 40166410', async () => {
    expect(total(await env.request('GET /conf/jobs', { query: { limit: 100 } }))).toBe(13);
    const manual = await env.request('GET /conf/jobs', { query: { type: 'MANUAL' } });
    expect(items(manual, 'job').map((job) => job.id)).toEqual(['M2601', 'M2702']);
    const byProfile = await env.request('GET /conf/jobs', {
      query: { type: 'SCHEDULED', profile_id: '6127400000561' },
    });
    expect(items(byProfile, 'job').map((job) => job.id)).toEqual(['S7781']);
    await expectRefusal(
      env.request('GET /conf/jobs', { query: { category: 'GARDENING' } }),
      '40166410',
      'invalid category or invalid type',
    );
  });

  it('walks the job list page by page with paginate (13 jobs, limit 5: 3 pages)', async () => {
    const pages = [];
    for await (const page of env.client.paginate.pages('GET /conf/jobs', { query: { limit: 5 } }))
      pages.push(page.items.length);
    expect(pages).toEqual([5, 5, 3]);
  });

  it('type=SIS is refused, by the client before the network and by the sandbox with 40166410; the USERS/SIS job is a SCHEDULED USERS job', async () => {
    // spec §4.3: type is MANUAL, SCHEDULED or OTHER; "USERS/SIS" names a USERS job that is a SIS job.
    await expect(env.client.call('listJobs', { query: { type: 'SIS' } })).rejects.toBeInstanceOf(
      SvcParamError,
    );
    const raw = await env.sut.api('GET', '/conf/jobs?type=SIS');
    expect([raw.status, raw.errorCode]).toEqual([400, '40166410']);
    const users = await env.request('GET /conf/jobs', {
      query: { category: 'USERS', type: 'SCHEDULED' },
    });
    expect(items(users, 'job').map((job) => job.id)).toEqual(['S8801']);
  });

  it('reads a job; a malformed id is 402215, an unknown one 402216', async () => {
    const job = obj(await env.request('GET /conf/jobs/{job_id}', { path: { job_id: 'S7781' } }));
    expect([job.name, valueOf(job.category)]).toEqual(['Import MARC records', 'IMPORT']);
    await expectRefusal(
      env.request('GET /conf/jobs/{job_id}', { path: { job_id: 'job-1' } }),
      '402215',
      'bad job id format',
    );
    await expectRefusal(
      env.request('GET /conf/jobs/{job_id}', { path: { job_id: 'S0000' } }),
      '402216',
      'invalid job id',
    );
  });

  it('submits a job: the answer is the job with the new instance in additional_info', async () => {
    const job = obj(
      await env.request(SUBMIT, {
        path: { job_id: 'S7781' },
        query: { op: 'run' },
        body: JOB_BODY,
      }),
    );
    const info = obj(job.additional_info);
    expect(String(info.value)).toMatch(/^Job no\. \d+ triggered on /);
    const instanceId = /instances\/(\d+)$/.exec(String(info.link))?.[1] ?? '';
    const instance = await env.request('GET /conf/jobs/{job_id}/instances/{instance_id}', {
      path: { job_id: 'ALL', instance_id: instanceId },
    });
    // `submitted_by` is not checked by the client (no reader): it passes through as sent.
    expect(instance['submitted_by']).toMatchObject({ value: 'api' });
    expect(['QUEUED', 'RUNNING']).toContain(instance.status.value);
  });

  describe('submit refusals come back as SvcApiError with the explanation in words', () => {
    it('60347: a second run of a job still running', async () => {
      const error = await expectRefusal(
        env.request(SUBMIT, { path: { job_id: 'S7781' }, query: { op: 'run' }, body: JOB_BODY }),
        '60347',
        'job overlaps a running job',
      );
      expect(error.explanation).toBe(
        'The job was not started: another run of the same job is still in progress. Try again when it has finished.',
      );
      expect(error.message.startsWith(error.explanation ?? '-')).toBe(true);
      expect([error.retryable, error.retryAfterMs, error.attempts]).toEqual([true, 300_000, 1]);
    });

    it('402222: a fourth API-started job while three are running', async () => {
      for (const jobId of ['S7782', 'S8120']) {
        await env.request(SUBMIT, {
          path: { job_id: jobId },
          query: { op: 'run' },
          body: JOB_BODY,
        });
      }
      const error = await expectRefusal(
        env.request(SUBMIT, { path: { job_id: 'S8130' }, query: { op: 'run' }, body: JOB_BODY }),
        '402222',
        'execution threshold reached',
      );
      expect(error.explanation).toBe(
        'The job was not started: the platform allows at most 3 API-started jobs running at once, or 5 runs of the same job per hour. Try again later.',
      );
      expect([error.retryable, error.retryAfterMs]).toEqual([true, 600_000]);
    });

    it('402231: a job of more than one task, not retryable', async () => {
      const error = await expectRefusal(
        env.request(SUBMIT, { path: { job_id: 'M2702' }, query: { op: 'run' }, body: JOB_BODY }),
        '402231',
        'job consists of more than one task',
      );
      expect(error.explanation).toMatch(/more than one task.*Run it from the platform instead\.$/);
      expect([error.retryable, error.retryAfterMs]).toEqual([false, undefined]);
    });

    it('402223: a sixth run of the same job within the hour', async () => {
      const quick = await clientAgainstSandbox({ SANDBOX_JOB_DURATION_MS: 0 });
      try {
        const submit = () =>
          quick.request(SUBMIT, {
            path: { job_id: 'S8210' },
            query: { op: 'run' },
            body: JOB_BODY,
          });
        for (let run = 1; run <= 5; run += 1) {
          const info = obj(obj(await submit()).additional_info);
          const id = /instances\/(\d+)$/.exec(String(info.link))?.[1] ?? '';
          await endedInstance(quick, 'S8210', id); // else the next one is an overlap (60347)
        }
        const error = await expectRefusal(submit(), '402223', 'execution threshold reached');
        expect(error.explanation).toContain('5 runs of the same job per hour');
        expect(error.platformMessage).toContain('previous hour');
      } finally {
        await quick.close();
      }
    });
  });

  it('refuses an empty job object with 402228, an OTHER job with 402248, a circulation scheduled job with 402249', async () => {
    await expectRefusal(
      env.request(SUBMIT, { path: { job_id: 'S8310' }, query: { op: 'run' }, body: {} }),
      '402228',
      'mandatory parameter missing from input',
    );
    await expectRefusal(
      env.request(SUBMIT, { path: { job_id: 'O3001' }, query: { op: 'run' }, body: JOB_BODY }),
      '402248',
      'scheduled job cannot be submitted',
    );
    await expectRefusal(
      env.request(SUBMIT, { path: { job_id: 'S9100' }, query: { op: 'run' }, body: JOB_BODY }),
      '402249',
      'invalid scheduled job category',
    );
  });

  it('lists a job instances by submit dates (to inclusive) and status; an unknown status is 40166410', async () => {
    const listed = await env.request('GET /conf/jobs/{job_id}/instances', {
      path: { job_id: 'S8120' },
      query: { submit_date_from: isoDay(-30), submit_date_to: isoDay(0) },
    });
    const instances = items(listed, 'job_instance');
    expect(instances.length).toBe(4); // three seeded past runs and the one submitted above
    expect(total(listed)).toBe(4);
    const done = await env.request('GET /conf/jobs/{job_id}/instances', {
      path: { job_id: 'S8120' },
      query: { status: 'COMPLETED_SUCCESS' },
    });
    expect(total(done)).toBe(3);
    await expectRefusal(
      env.request('GET /conf/jobs/{job_id}/instances', {
        path: { job_id: 'S8120' },
        query: { status: 'NAPPING' },
      }),
      '40166410',
      'invalid status',
    );
  });

  it('reads an instance, typed by the client, also with job_id ALL; another job is 402218', async () => {
    const id = await adminRun(env, 'S7782', 50);
    const instance = await endedInstance(env, 'S7782', id);
    expect(instance.status.value).toBe('COMPLETED_WARNINGS');
    expect(instance.counter?.find((c) => c.type.value === 'TOTAL_RECORDS_IMPORTED')?.value).toBe(
      '48',
    );
    const viaAll = await env.request('GET /conf/jobs/{job_id}/instances/{instance_id}', {
      path: { job_id: 'ALL', instance_id: id },
    });
    expect(viaAll.job_info?.id).toBe('S7782');
    await expectRefusal(
      env.request('GET /conf/jobs/{job_id}/instances/{instance_id}', {
        path: { job_id: 'S7781', instance_id: id },
      }),
      '402218',
      'invalid instance id',
    );
  });

  it('downloads an import instance as ISO 2709 to a file: every record, last byte 0x1D', async () => {
    const id = await adminRun(env, 'S7781', 120);
    await endedInstance(env, 'S7781', id);
    const to = join(tmp, `${id}.mrc`);
    const result = await env.download(
      { job_id: 'S7781', instance_id: id, download_format: 'BINARY' },
      { to },
    );
    const file = await readFile(to);
    expect(result.bytes).toBe(file.length);
    expect(result.contentType).toBe('application/octet-stream');
    expect(file.filter((byte) => byte === RECORD_TERMINATOR)).toHaveLength(120);
    expect(file[file.length - 1]).toBe(RECORD_TERMINATOR);
  });

  it('downloads as MARCXML by default: a complete collection', async () => {
    const id = await adminRun(env, 'S7781', 7);
    await endedInstance(env, 'S7781', id);
    const to = join(tmp, `${id}.xml`);
    await env.download({ job_id: 'S7781', instance_id: id }, { to });
    const xml = await readFile(to, 'utf8');
    expect(xml.match(/<record>/g)).toHaveLength(7);
    expect(xml.trimEnd().endsWith('</collection>')).toBe(true);
  });

  it('the download of a non-import instance is refused with 40166410, a code the spec does not list for it, and the client gives §7 general meaning', async () => {
    // spec §4.3 lists 402215, 402216, 402218 for the download; the sandbox chose 40166410.
    const exports = await env.request('GET /conf/jobs/{job_id}/instances', {
      path: { job_id: 'S8130' },
      query: { status: 'COMPLETED_SUCCESS' },
    });
    const id = String(items(exports, 'job_instance')[0]?.id);
    const error = await apiError(
      env.download({ job_id: 'S8130', instance_id: id }, { to: join(tmp, 'none.xml') }),
    );
    expect([error.status, error.code, error.meaning]).toEqual([
      400,
      '40166410',
      'invalid parameter value',
    ]);
  });

  it('lists the events of a USERS/SIS instance; another job is 60332', async () => {
    const sis = await env.request('GET /conf/jobs/{job_id}/instances', {
      path: { job_id: 'S8801' },
    });
    const id = String(items(sis, 'job_instance')[0]?.id);
    const events = await env.request('GET /conf/jobs/{job_id}/instances/{instance_id}/events', {
      path: { job_id: 'S8801', instance_id: id },
      query: { limit: 100 },
    });
    const list = items(events, 'event');
    expect(list.length).toBeGreaterThan(0);
    expect(total(events)).toBe(list.length);
    const imports = await env.request('GET /conf/jobs/{job_id}/instances', {
      path: { job_id: 'S7783' },
    });
    await expectRefusal(
      env.request('GET /conf/jobs/{job_id}/instances/{instance_id}/events', {
        path: { job_id: 'S7783', instance_id: String(items(imports, 'job_instance')[0]?.id) },
      }),
      '60332',
      'only USERS/SIS supported',
    );
  });

  it('the test files together own exactly the operation table (each row in one part)', () => {
    const routes = Object.keys(endpoints) as Route[];
    const owners = routes.map(
      (route) => (Object.keys(PARTS) as Part[]).filter((part) => PARTS[part](route)).length,
    );
    expect(routes).toHaveLength(94);
    expect(owners.every((count) => count === 1)).toBe(true);
    expect((Object.keys(PARTS) as Part[]).flatMap(routesOf).sort()).toEqual([...routes].sort());
  });

  it('called every operation of the jobs part', () => {
    const missing = routesOf('jobs').filter((route) => !env.called.has(route));
    expect(missing).toEqual([]);
  });
});
