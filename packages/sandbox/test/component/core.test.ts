import { XMLParser } from 'fast-xml-parser';
import { platformAreas } from '../../src/areas';
import { startSandbox } from '../../src/testing/start-sandbox';
import type { SandboxUnderTest } from '../../src/testing/start-sandbox';

describe('sandbox core: auth, governance, errors, paging', () => {
  let sut: SandboxUnderTest;
  afterEach(async () => {
    await sut.close();
  });

  it('answers 401 in the error body for a missing or unknown apikey', async () => {
    sut = await startSandbox();
    const missing = await sut.api('GET', '/conf/jobs?apikey=');
    const wrong = await sut.api('GET', '/conf/jobs?apikey=nope');
    expect([missing.status, wrong.status]).toEqual([401, 401]);
    expect(missing.errorCode).toBe('UNAUTHORIZED');
    expect(wrong.errorCode).toBe('UNAUTHORIZED');
    expect(wrong.text).not.toContain('nope');
  });

  it('counts X-Svc-Api-Remaining down from the daily budget on every response with a body', async () => {
    sut = await startSandbox({ SANDBOX_DAILY_BUDGET: 3 });
    const seen: (string | null)[] = [];
    for (let call = 0; call < 4; call += 1) {
      const reply = await sut.api('GET', '/conf/jobs');
      seen.push(`${String(reply.status)}:${String(reply.headers.get('x-svc-api-remaining'))}`);
    }
    expect(seen).toEqual(['200:2', '200:1', '200:0', '429:0']);
  });

  it('answers 429 with Retry-After past the per-second threshold', async () => {
    sut = await startSandbox(
      { SANDBOX_RATE_PER_SECOND: 3 },
      { clock: () => new Date('2024-11-06T10:00:00.500Z') },
    );
    const statuses: number[] = [];
    for (let call = 0; call < 5; call += 1)
      statuses.push((await sut.api('GET', '/conf/jobs')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = await sut.api('GET', '/conf/jobs');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.errorCode).toBe('PER_SECOND_THRESHOLD');
  });

  it('answers 404 for an unknown path, in XML when asked', async () => {
    sut = await startSandbox();
    const reply = await sut.api('GET', '/conf/no-such-thing', {
      headers: { accept: 'application/xml' },
    });
    expect(reply.status).toBe(404);
    const parsed = new XMLParser().parse(reply.text) as {
      web_service_result: { errorList: { error: { errorCode: string } } };
    };
    expect(parsed.web_service_result.errorList.error.errorCode).toBe('NOT_FOUND');
  });

  it('sends a 400 with the numeric code and a trackingId in JSON and in XML', async () => {
    sut = await startSandbox();
    const json = await sut.api('GET', '/conf/jobs/S0000');
    expect(json.status).toBe(400);
    expect(json.json).toMatchObject({
      errorsExist: true,
      errorList: { error: [{ errorCode: '402216' }] },
    });
    const xml = await sut.api('GET', '/conf/jobs/S0000', {
      headers: { accept: 'application/xml' },
    });
    expect(xml.status).toBe(400);
    expect(xml.headers.get('content-type')).toContain('application/xml');
    const error = (
      new XMLParser({ parseTagValue: false }).parse(xml.text) as {
        web_service_result: { errorsExist: string; errorList: { error: Record<string, string> } };
      }
    ).web_service_result;
    expect(error.errorsExist).toBe('true');
    expect(error.errorList.error).toMatchObject({ errorCode: '402216' });
    expect(error.errorList.error.trackingId).toMatch(/^E01-/);
  });

  it("refuses a malformed JSON body with 400 and the operation's own body code", async () => {
    sut = await startSandbox();
    const reply = await sut.api('POST', '/conf/jobs/S7781?op=run', { body: '{"id": ' });
    expect(reply.status).toBe(400);
    // The job submit's row lacks 402119 (spec §4.3): its body code is 402228.
    expect(reply.errorCode).toBe('402228');
  });

  it('validates limit and offset with 40166410 and pages with total_record_count', async () => {
    sut = await startSandbox();
    for (const query of ['limit=101', 'limit=-1', 'limit=ten', 'offset=-3']) {
      expect((await sut.api('GET', `/conf/jobs?${query}`)).errorCode).toBe('40166410');
    }
    const all = await sut.api('GET', '/conf/jobs?limit=100');
    const page = await sut.api('GET', '/conf/jobs?limit=2&offset=1');
    const allJobs = all.json.job as { id: string }[];
    expect(page.json.total_record_count).toBe(allJobs.length);
    expect((page.json.job as { id: string }[]).map((job) => job.id)).toEqual(
      allJobs.slice(1, 3).map((job) => job.id),
    );
    const empty = await sut.api('GET', '/conf/jobs?limit=0');
    expect(empty.json).toEqual({ total_record_count: allJobs.length });
  });

  it('sends lists as XML with the plural root and total_record_count', async () => {
    sut = await startSandbox();
    const reply = await sut.api('GET', '/conf/jobs?limit=3', {
      headers: { accept: 'application/xml' },
    });
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(reply.text) as {
      jobs: { '@_total_record_count': string; job: unknown[] };
    };
    expect(parsed.jobs.job).toHaveLength(3);
    expect(Number(parsed.jobs['@_total_record_count'])).toBeGreaterThan(3);
  });

  it('serves every registered area behind the apikey and the governance header', async () => {
    sut = await startSandbox({}, { areas: platformAreas });
    const paths = [
      '/conf/code-tables',
      '/conf/libraries',
      '/conf/deposit-profiles',
      '/conf/printers',
      '/conf/sets',
      '/conf/license-terms',
      '/partners',
      '/acq/currencies',
      '/acq/fiscal-periods',
      '/conf/jobs',
    ];
    for (const path of paths) {
      const reply = await sut.api('GET', path);
      expect([path, reply.status]).toEqual([path, 200]);
      expect(reply.headers.get('x-svc-api-remaining')).toMatch(/^\d+$/);
      expect((await sut.api('GET', `${path}?apikey=wrong`)).status).toBe(401);
    }
  });

  it('deletes with 204 and no body; reset re-seeds the areas to the same data', async () => {
    sut = await startSandbox({}, { areas: platformAreas });
    const before = await sut.api('GET', '/partners?limit=100');
    const code = (
      before.json.partner as { partner_details?: { code?: string }; code?: string }[]
    )[0];
    const partnerCode = code?.partner_details?.code ?? code?.code ?? '';
    const deleted = await sut.api('DELETE', `/partners/${partnerCode}`);
    expect([deleted.status, deleted.text, deleted.headers.get('x-svc-api-remaining')]).toEqual([
      204,
      '',
      null,
    ]);
    expect((await sut.api('GET', '/partners?limit=100')).text).not.toBe(before.text);
    await sut.admin('POST', '/reset');
    expect((await sut.api('GET', '/partners?limit=100')).text).toBe(before.text);
  });
});
