import express from 'express';
import request from 'supertest';
import { createErrorHandler } from '../../../src/http/error-handler';
import { HttpError } from '../../../src/http/http-error';
import { captureLogger } from '../../helpers/capture-logger';

/** An app whose routes fail in each way the error handler meets. */
function appFailingWith(error: unknown) {
  const captured = captureLogger();
  const app = express();
  app.get('/fail', () => {
    throw error;
  });
  app.get('/item/:code', (_req, res) => {
    res.status(200).end();
  });
  app.use(createErrorHandler(captured.logger));
  return { app, captured };
}

describe('the error handler', () => {
  it('answers an HttpError as it is', async () => {
    const { app } = appFailingWith(new HttpError(409, 'conflict', 'already there'));
    const res = await request(app).get('/fail');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ status: 409, error: 'conflict', message: 'already there' });
  });

  it('answers a request Express could not read (a path that does not decode) 400 bad_request', async () => {
    const { app, captured } = appFailingWith(new Error('unused'));
    const res = await request(app).get('/item/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 400,
      error: 'bad_request',
      message: 'the request could not be read',
    });
    expect(captured.lines()).toEqual([]);
  });

  it('answers a defect 500 internal_error without its message, and logs it', async () => {
    const { app, captured } = appFailingWith(new Error('secret detail'));
    const res = await request(app).get('/fail');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ status: 500, error: 'internal_error', message: 'internal error' });
    expect(res.text).not.toContain('secret detail');
    expect(captured.lines()).toEqual([expect.objectContaining({ msg: 'unhandled error' })]);
  });
});
