import { inspect } from 'node:util';
import { createSvcClient } from '../src';
import { nodeHttpTransport } from '../src';
import type { HttpTransport } from '../src';
import { captureLogger, errorBody, failureOf, sendJson, startServer } from './recording-server';
import type { RecordingServer } from './recording-server';

const API_KEY = 'sEcReT-key-0123456789';

/** Answers per test: status, content type, body. */
let answer: { status: number; type: string; body: string | Buffer } = {
  status: 200,
  type: 'application/json',
  body: '{}',
};

function respondWith(status: number, type: string, body: string | Buffer): void {
  answer = { status, type, body };
}

describe('error answers become SvcApiError', () => {
  let server: RecordingServer;

  beforeAll(async () => {
    server = await startServer((_request, response) => {
      response.writeHead(answer.status, { 'content-type': answer.type });
      response.end(answer.body);
    });
  });
  afterAll(() => server.close());

  const getJob = (options: { logger?: ReturnType<typeof captureLogger>['logger'] } = {}) =>
    createSvcClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      maxRetries: 0,
      ...options,
    }).request('GET /conf/jobs/{job_id}', { path: { job_id: 'S1' } });

  it('reads the JSON error body: status, code, documented meaning, message, tracking id', async () => {
    respondWith(
      400,
      'application/json',
      JSON.stringify(errorBody('402216', 'Invalid job id: S1', 'E01-42')),
    );

    const error = await failureOf(getJob());

    expect(error).toMatchObject({
      status: 400,
      code: '402216',
      meaning: 'invalid job id',
      message: 'Invalid job id: S1',
      trackingId: 'E01-42',
      operation: 'getJob',
      method: 'GET',
      retryable: false,
    });
    expect(error.url).toContain('/svcws/v1/conf/jobs/S1?apikey=[redacted]');
  });

  it('reads the body wrapped in web_service_result', async () => {
    const wrapped = { web_service_result: errorBody('402215', 'Bad job id format') };
    respondWith(400, 'application/json', JSON.stringify(wrapped));

    const error = await failureOf(getJob());

    expect(error).toMatchObject({ code: '402215', meaning: 'bad job id format' });
  });

  it('reads error as one object instead of an array', async () => {
    const single = {
      errorsExist: true,
      errorList: {
        error: { errorCode: '402249', errorMessage: 'Invalid category', trackingId: 'T' },
      },
    };
    respondWith(400, 'application/json', JSON.stringify(single));

    const error = await failureOf(getJob());

    expect(error).toMatchObject({
      code: '402249',
      meaning: 'invalid scheduled job category',
      message: 'Invalid category',
    });
  });

  it('reads the XML error body with its namespace', async () => {
    respondWith(
      400,
      'application/xml',
      '<?xml version="1.0"?><web_service_result xmlns="http://com/exlibris/urm/general/xmlbeans">' +
        '<errorsExist>true</errorsExist><errorList><error><errorCode>402216</errorCode>' +
        '<errorMessage>Invalid job id: S1</errorMessage><trackingId>E01-X</trackingId></error>' +
        '</errorList></web_service_result>',
    );

    const error = await failureOf(getJob());

    expect(error).toMatchObject({ code: '402216', meaning: 'invalid job id', trackingId: 'E01-X' });
  });

  it.each([
    ['an empty body', 502, 'application/json', ''],
    [
      'an HTML gateway page',
      502,
      'text/html',
      '<!DOCTYPE html><html><body>Bad gateway</body></html>',
    ],
    ['invalid JSON', 400, 'application/json', '{"errorList": {"error": [ {"errorCode": '],
    [
      'XML with a DOCTYPE declaring entities',
      400,
      'application/xml',
      '<!DOCTYPE x [<!ENTITY a "402216">]><web_service_result><errorList><error><errorCode>&a;</errorCode></error></errorList></web_service_result>',
    ],
    ['a 5 MB body', 400, 'application/json', `{"pad":"${'x'.repeat(5 * 1024 * 1024)}"}`],
  ])('survives %s, keeping the status and a message', async (_case, status, type, body) => {
    respondWith(status, type, body);

    const error = await failureOf(getJob());

    expect(error.status).toBe(status);
    expect(error.code).toBeUndefined();
    expect(error.message).toBe(`getJob failed with HTTP ${status}`);
    expect(error.retryable).toBe(status >= 500);
  });

  it.each([
    ['402119', 'general error'],
    ['40166410', 'invalid parameter value'],
    ['40166411', 'invalid parameter'],
    ['60100', 'not a number above zero'],
    ['401873', undefined],
  ])(
    'gives a code the operation does not list (%s) the general meaning of spec §7, if it has one',
    async (code, meaning) => {
      respondWith(400, 'application/json', JSON.stringify(errorBody(code, 'Refused')));

      const error = await failureOf(getJob());

      expect([error.status, error.code, error.meaning]).toEqual([400, code, meaning]);
    },
  );

  it('keeps a non-numeric platform code such as UNAUTHORIZED', async () => {
    respondWith(
      401,
      'application/json',
      JSON.stringify(errorBody('UNAUTHORIZED', 'API key missing')),
    );

    const error = await failureOf(getJob());

    expect(error).toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
      meaning: undefined,
      retryable: false,
    });
  });

  it('never lets the API key reach an error: message, url, cause, JSON and inspect', async () => {
    respondWith(
      400,
      'application/json',
      JSON.stringify(errorBody('402216', `Invalid key ${API_KEY}`)),
    );
    // A transport whose errors quote the URL, as undici's and some proxies' do.
    const leakyTransport: HttpTransport = async (url, request) => {
      await nodeHttpTransport(url, request).then((response) => response.body.resume());
      throw new TypeError(`fetch failed for ${url.href}`, {
        cause: new Error(`socket hang up at ${url.href}`),
      });
    };
    const networkClient = createSvcClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      maxRetries: 0,
      transport: leakyTransport,
    });

    const platformError = await failureOf(getJob());
    const networkError = await failureOf(
      networkClient.request('GET /conf/jobs/{job_id}', { path: { job_id: 'S1' } }),
    );

    for (const error of [platformError, networkError]) {
      const views = [
        error.message,
        error.url,
        String(error.stack),
        JSON.stringify(error),
        inspect(error, { depth: 10 }),
        error.cause instanceof Error ? `${error.cause.message} ${String(error.cause.stack)}` : '',
      ];
      for (const view of views) expect(view).not.toContain(API_KEY);
    }
    expect(networkError.code).toBe('NETWORK');
    expect(networkError.cause).toBeInstanceOf(Error);
    expect(inspect(networkError)).toContain('apikey=[redacted]');
  });

  it('logs one debug line per call with the redacted URL, httpStatus, duration and remaining', async () => {
    const { logger, lines } = captureLogger();
    respondWith(400, 'application/json', JSON.stringify(errorBody('402216', 'Invalid job id')));

    await failureOf(getJob({ logger }));

    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({ level: 20, operation: 'getJob', httpStatus: 400, code: '402216' });
    expect(typeof line['durationMs']).toBe('number');
    expect(line['url']).toContain('apikey=[redacted]');
    expect(lines.join('\n')).not.toContain(API_KEY);
  });
});

describe('success answers', () => {
  let server: RecordingServer;
  beforeAll(async () => {
    server = await startServer((_request, response) =>
      sendJson(
        response,
        200,
        { id: 'I1', status: { value: 'RUNNING' } },
        { 'x-svc-api-remaining': '77' },
      ),
    );
  });
  afterAll(() => server.close());

  it('logs the success line without the key and with the remaining budget', async () => {
    const { logger, lines } = captureLogger();
    const client = createSvcClient({ baseUrl: server.baseUrl, apiKey: API_KEY, logger });

    const instance = await client.request('GET /conf/jobs/{job_id}/instances/{instance_id}', {
      path: { job_id: 'S1', instance_id: 'I1' },
    });

    expect(instance.status.value).toBe('RUNNING');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      httpStatus: 200,
      remaining: 77,
      operation: 'getJobInstance',
    });
    expect(lines.join('\n')).not.toContain(API_KEY);
  });
});
