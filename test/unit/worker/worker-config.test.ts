import { loadConfig, WorkerConfig } from '../../../src/config';

describe('the worker’s configuration', () => {
  const required = { SVC_BASE_URL: 'http://127.0.0.1:8790', SVC_API_KEY: 'k' };

  it('survives five lost runs of one job by default, and lets WORKER_MAX_STALLED_COUNT say more', () => {
    expect(loadConfig(WorkerConfig, required).WORKER_MAX_STALLED_COUNT).toBe(5);
    expect(
      loadConfig(WorkerConfig, { ...required, WORKER_MAX_STALLED_COUNT: '9' })
        .WORKER_MAX_STALLED_COUNT,
    ).toBe(9);
  });

  it('leaves retries to BullMQ: the worker’s client does not retry unless SVC_MAX_RETRIES says so', () => {
    expect(loadConfig(WorkerConfig, required).SVC_MAX_RETRIES).toBe(0);
    expect(loadConfig(WorkerConfig, { ...required, SVC_MAX_RETRIES: '2' }).SVC_MAX_RETRIES).toBe(2);
  });
});
