import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createSvcClient, SvcApiError } from '../src';

// Answers as a new user has them: the documentation's sample of a job instance (every leaf a
// placeholder, `"action": ["string"]`) and a completed import as the platform sends it.
const fixture = (name: string): string => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const GET_INSTANCE = 'GET /conf/jobs/{job_id}/instances/{instance_id}';
const path = { job_id: 'S7781', instance_id: '5871043560000561' };

let answer = '';
let server: Server;
let baseUrl = '';

beforeAll(async () => {
  server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/svcws/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function client() {
  return createSvcClient({ baseUrl, apiKey: 'k', maxRetries: 0 });
}

describe('job instance answers are checked only where a field is read', () => {
  it('accepts the documentation sample and passes its unread `action` through as sent', async () => {
    answer = fixture('job-instance.doc-sample.json');
    const instance = await client().request(GET_INSTANCE, { path });
    expect(instance.status.value).toBe('string');
    expect(instance['action']).toEqual(['string']);
  });

  it('reads a completed import and keeps every unread field untouched', async () => {
    answer = fixture('job-instance.completed.json');
    const instance = await client().request(GET_INSTANCE, { path });
    expect(instance.job_info?.category?.value).toBe('IMPORT');
    expect(instance.counter?.[0]?.value).toBe('25');
    expect(instance).toEqual(JSON.parse(answer));
  });

  it('still refuses an answer without the status every reader uses (INVALID_RESPONSE)', async () => {
    const { status: _status, ...withoutStatus } = JSON.parse(
      fixture('job-instance.completed.json'),
    ) as Record<string, unknown>;
    answer = JSON.stringify(withoutStatus);
    const error = await client()
      .request(GET_INSTANCE, { path })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(SvcApiError);
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE' });
  });
});
