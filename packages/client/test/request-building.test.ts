import { createSvcClient } from '../src';
import { SvcApiError } from '../src';
import { SvcParamError } from '../src';
import { sendJson, startServer } from './recording-server';
import type { RecordingServer } from './recording-server';

const API_KEY = 'k3y-Secret/+=';

describe('request building against a real server', () => {
  let server: RecordingServer;

  beforeAll(async () => {
    server = await startServer((request, response) => {
      if (request.method === 'DELETE') {
        response.writeHead(204, { 'x-svc-api-remaining': '999' });
        response.end();
      } else if (request.headers.accept === 'application/xml') {
        response.writeHead(200, { 'content-type': 'application/xml' });
        response.end('<letter><code>FulLetter</code></letter>');
      } else {
        sendJson(response, 200, { echoed: request.pathname }, { 'x-svc-api-remaining': '999' });
      }
    });
  });
  afterAll(() => server.close());
  beforeEach(() => server.requests.splice(0));

  const client = () => createSvcClient({ baseUrl: server.baseUrl, apiKey: API_KEY });

  it('builds a conf URL under /svcws/v1 with encoded path parameters and the apikey', async () => {
    const result = await client().request(
      'GET /conf/jobs/{job_id}/instances/{instance_id}/events',
      {
        path: { job_id: 'S 77/81', instance_id: 'ä?#1' },
        query: { limit: 5, offset: 10 },
      },
    );

    const [seen] = server.requests;
    expect(seen?.method).toBe('GET');
    expect(seen?.pathname).toBe('/svcws/v1/conf/jobs/S%2077%2F81/instances/%C3%A4%3F%231/events');
    expect(seen?.query.get('limit')).toBe('5');
    expect(seen?.query.get('offset')).toBe('10');
    expect(seen?.query.get('apikey')).toBe(API_KEY);
    expect(seen?.headers.accept).toBe('application/json');
    expect(seen?.headers['content-type']).toBeUndefined();
    expect(result).toEqual({ echoed: seen?.pathname });
  });

  it('keeps the trailing slash the spec writes for the acq invoice list', async () => {
    await client().request('GET /acq/invoices/', { query: { limit: 100 } });

    expect(server.requests[0]?.pathname).toBe('/svcws/v1/acq/invoices/');
  });

  it('sends a partners JSON body with Content-Type application/json', async () => {
    const partner = { partner_details: { code: 'P1', name: 'Partner one' } };

    await client().request('POST /partners', { body: partner });

    const [seen] = server.requests;
    expect(seen?.method).toBe('POST');
    expect(seen?.pathname).toBe('/svcws/v1/partners');
    expect(seen?.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(seen?.body ?? '')).toEqual(partner);
    expect(seen?.query.get('apikey')).toBe(API_KEY);
  });

  it('sends an XML letter update as XML and returns the XML answer as a string', async () => {
    const xml = '<letter><code>FulLetter</code></letter>';

    const answer = await client().request('PUT /conf/letters/{letterCode}', {
      path: { letterCode: 'FulLetter' },
      body: xml,
      format: 'xml',
    });

    const [seen] = server.requests;
    expect(seen?.headers['content-type']).toMatch(/^application\/xml/);
    expect(seen?.headers.accept).toBe('application/xml');
    expect(seen?.body).toBe(xml);
    expect(answer).toBe(xml);
  });

  it('sends an XML body and reads a JSON answer when accept says json', async () => {
    const xml = '<letter><code>FulLetter</code></letter>';

    const answer: unknown = await client().request('PUT /conf/letters/{letterCode}', {
      path: { letterCode: 'FulLetter' },
      body: xml,
      format: 'xml',
      accept: 'json',
    });

    const [seen] = server.requests;
    expect(seen?.headers['content-type']).toMatch(/^application\/xml/);
    expect(seen?.headers.accept).toBe('application/json');
    expect(answer).toEqual({ echoed: '/svcws/v1/conf/letters/FulLetter' });
  });

  it('sends a JSON body and returns the XML answer as a string when accept says xml', async () => {
    const answer: string = await client().request('POST /partners', {
      body: { partner_details: { code: 'P1' } },
      accept: 'xml',
    });

    const [seen] = server.requests;
    expect(seen?.headers['content-type']).toMatch(/^application\/json/);
    expect(seen?.headers.accept).toBe('application/xml');
    expect(answer).toBe('<letter><code>FulLetter</code></letter>');
  });

  it('refuses JSON for the XML-only letter update before the network, as code 60105', async () => {
    const attempt = client().request('PUT /conf/letters/{letterCode}', {
      path: { letterCode: 'FulLetter' },
      body: { code: 'FulLetter' },
    });

    await expect(attempt).rejects.toBeInstanceOf(SvcApiError);
    await expect(attempt).rejects.toMatchObject({
      code: '60105',
      meaning: 'JSON not supported',
      operation: 'updateLetter',
      retryable: false,
    });
    expect(server.requests).toHaveLength(0);
  });

  it('resolves a 204 delete with undefined', async () => {
    const answer = await client().request('DELETE /partners/{partner_code}', {
      path: { partner_code: 'P1' },
    });

    expect(answer).toBeUndefined();
    expect(server.requests[0]?.method).toBe('DELETE');
  });

  it('calls by operation name through the same path', async () => {
    await client().call('getFund', { path: { fund_id: '42' }, query: { view: 'brief' } });

    expect(server.requests[0]?.pathname).toBe('/svcws/v1/acq/funds/42');
    expect(server.requests[0]?.query.get('view')).toBe('brief');
  });

  it.each([
    ['a query value outside its rule', { query: { limit: 101 } }, 'limit'],
    ['an unknown query parameter', { query: { colour: 'red' } }, 'colour'],
  ])('refuses %s before the network, naming the parameter', async (_case, params, parameter) => {
    const attempt = client().call('listPartners', params);

    await expect(attempt).rejects.toBeInstanceOf(SvcParamError);
    await expect(attempt).rejects.toMatchObject({ operation: 'listPartners', parameter });
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a missing required body, naming body', async () => {
    const attempt = client().request('POST /conf/jobs/{job_id}', {
      path: { job_id: 'S7781' },
      query: { op: 'run' },
    });

    await expect(attempt).rejects.toMatchObject({ parameter: 'body', rule: 'is required' });
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a missing path parameter and a dot segment', async () => {
    await expect(client().call('getJob', { path: {} })).rejects.toMatchObject({
      parameter: 'job_id',
    });
    await expect(client().call('getJob', { path: { job_id: '..' } })).rejects.toMatchObject({
      parameter: 'job_id',
    });
    expect(server.requests).toHaveLength(0);
  });

  it("enforces the row's body rule (vat percentage or amount, not both)", async () => {
    const attempt = client().request('POST /acq/invoices', {
      body: { number: 'INV-1', vat_percentage: 20, vat_amount: 3 },
    });

    await expect(attempt).rejects.toMatchObject({ operation: 'createInvoice', parameter: 'body' });
    expect(server.requests).toHaveLength(0);
  });
});
