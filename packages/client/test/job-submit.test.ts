import { createSvcClient } from '../src';
import { errorBody, failureOf, sendJson, startServer } from './recording-server';
import type { RecordingServer } from './recording-server';

let refusal = { code: '402222', message: 'Execution threshold reached' };

describe('job submit refusals in user words', () => {
  let server: RecordingServer;
  beforeAll(async () => {
    server = await startServer((_request, response) =>
      sendJson(response, 400, errorBody(refusal.code, refusal.message)),
    );
  });
  afterAll(() => server.close());

  const runJob = () =>
    createSvcClient({ baseUrl: server.baseUrl, apiKey: 'job-key' }).request(
      'POST /conf/jobs/{job_id}',
      { path: { job_id: 'S7781' }, query: { op: 'run' }, body: { parameter: [] } },
    );

  it.each(['402222', '402223'])(
    'explains threshold %s and marks it retryable later',
    async (code) => {
      refusal = { code, message: 'Execution threshold reached' };

      const error = await failureOf(runJob());

      expect(error.explanation).toBe(
        'The job was not started: the platform allows at most 3 API-started jobs running at once, or 5 runs of the same job per hour. Try again later.',
      );
      expect(error.message).toContain(error.explanation);
      expect(error.message).toContain('Execution threshold reached');
      expect(error).toMatchObject({
        status: 400,
        code,
        meaning: 'execution threshold reached',
        retryable: true,
        platformMessage: 'Execution threshold reached',
      });
      expect(error.retryAfterMs).toBeGreaterThan(0);
      expect(server.requests.length).toBeGreaterThan(0);
    },
  );

  it('explains an overlap with a running instance, retryable when it ends', async () => {
    refusal = { code: '60347', message: 'Job overlaps' };

    const error = await failureOf(runJob());

    expect(error.explanation).toMatch(/another run of the same job is still in progress/);
    expect(error.retryable).toBe(true);
  });

  it('explains a multi-task job as never startable through the API', async () => {
    refusal = { code: '402231', message: 'More than one task' };

    const error = await failureOf(runJob());

    expect(error.explanation).toMatch(/more than one task/);
    expect(error.retryable).toBe(false);
    expect(error.retryAfterMs).toBeUndefined();
  });

  it('leaves other refusals as the platform said them', async () => {
    refusal = { code: '402216', message: 'Invalid job id: S7781' };

    const error = await failureOf(runJob());

    expect(error).toMatchObject({
      message: 'Invalid job id: S7781',
      explanation: undefined,
      meaning: 'invalid job id',
      retryable: false,
    });
  });
});
