import { UnrecoverableError } from 'bullmq';
import { SvcApiError } from '@svcws/client';
import { decideFailure } from '../../../src/worker/failure-policy';
import { MalformedMarcError } from '../../../src/worker/job-end/count-marc-records';
import { InstanceNotFinishedError } from '../../../src/worker/job-end/instance-not-finished-error';

function apiError(status: number, fields: { code?: string; retryable?: boolean } = {}) {
  return new SvcApiError({
    message: `getJobInstance failed with HTTP ${String(status)}`,
    status,
    code: fields.code,
    meaning: undefined,
    operation: 'getJobInstance',
    method: 'GET',
    route: 'GET /conf/jobs/{job_id}/instances/{instance_id}',
    url: 'http://svc/conf/jobs/ALL/instances/1?apikey=[redacted]',
    retryable: fields.retryable ?? false,
  });
}

describe('failure policy', () => {
  it.each([401, 403, 408])('retries an HTTP %i (key rotation, request timeout)', (status) => {
    expect(decideFailure(apiError(status)).kind).toBe('retry');
  });

  it('keeps a 400 with a documented code unrecoverable', () => {
    expect(decideFailure(apiError(400, { code: '402218' })).kind).toBe('unrecoverable');
  });

  it('keeps a 404 unrecoverable', () => {
    expect(decideFailure(apiError(404)).kind).toBe('unrecoverable');
  });

  it('waits out a 429 without deciding on attempts', () => {
    expect(decideFailure(apiError(429, { retryable: true }))).toMatchObject({
      kind: 'rate-limit',
      delayMs: 1000,
    });
  });

  it('takes a handler’s own word that an error is permanent (an UnrecoverableError subclass)', () => {
    const error = new MalformedMarcError('not well-formed MARCXML');
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect(decideFailure(error)).toEqual({
      kind: 'unrecoverable',
      reason: 'not well-formed MARCXML',
    });
  });

  it('retries an instance that has not finished', () => {
    expect(decideFailure(new InstanceNotFinishedError('9', 'RUNNING'))).toEqual({
      kind: 'retry',
      reason: 'job instance 9 has not finished (status RUNNING): read again later',
    });
  });
});
