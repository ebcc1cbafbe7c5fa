import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { createWorkerMetrics } from '../../../src/metrics/worker-metrics';
import { observeWorker } from '../../../src/metrics/observe-worker';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';
import type { MetricsServer } from '../../../src/metrics/serve-metrics';

describe('worker metrics server', () => {
  let server: MetricsServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('exposes jobs processed and failed by action, durations, API calls and the remaining budget', async () => {
    const metrics = createWorkerMetrics({ defaultMetrics: false });
    server = await metrics.listen(0, '127.0.0.1');
    metrics.jobProcessed('job_end', 0.4);
    metrics.jobProcessed('job_end', 1.2);
    metrics.jobProcessed('loan', 0.01);
    metrics.jobFailed('job_end', 3);
    metrics.apiCall();
    metrics.apiCall(2);
    metrics.remaining(4321);
    metrics.remaining(4319);

    const answer = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    const text = await answer.text();

    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/plain');
    expect(text).toContain('svcws_worker_jobs_processed_total{action="job_end"} 2');
    expect(text).toContain('svcws_worker_jobs_processed_total{action="loan"} 1');
    expect(text).toContain('svcws_worker_jobs_failed_total{action="job_end"} 1');
    expect(text).toContain(
      'svcws_worker_job_duration_seconds_count{action="job_end",outcome="completed"} 2',
    );
    expect(text).toContain(
      'svcws_worker_job_duration_seconds_bucket{le="0.5",action="job_end",outcome="completed"} 1',
    );
    expect(text).toContain(
      'svcws_worker_job_duration_seconds_count{action="job_end",outcome="failed"} 1',
    );
    expect(text).toContain('svcws_worker_api_calls_total 3');
    expect(text).toContain('svcws_worker_api_remaining 4319');
  });

  it('includes process metrics by default and answers 404 off /metrics', async () => {
    const metrics = createWorkerMetrics();
    server = await metrics.listen(0, '127.0.0.1');

    const [page, other] = await Promise.all([
      fetch(`http://127.0.0.1:${server.port}/metrics`).then((res) => res.text()),
      fetch(`http://127.0.0.1:${server.port}/other`),
    ]);

    expect(page).toContain('process_cpu_seconds_total');
    expect(other.status).toBe(404);
  });

  it('keeps two workers in one process apart (no global registry)', async () => {
    const first = createWorkerMetrics({ defaultMetrics: false });
    const second = createWorkerMetrics({ defaultMetrics: false });
    first.jobProcessed('job_end', 1);

    const text = await second.registry.metrics();

    expect(text).not.toContain('svcws_worker_jobs_processed_total{action="job_end"}');
  });

  it('rejects when the port is taken', async () => {
    const metrics = createWorkerMetrics({ defaultMetrics: false });
    server = await metrics.listen(0, '127.0.0.1');

    await expect(metrics.listen(server.port, '127.0.0.1')).rejects.toThrow(/EADDRINUSE/);
  });
});

describe('observeWorker', () => {
  it('counts completed and failed jobs of a real BullMQ worker by action', async () => {
    const queueName = uniqueQueueName('observe-worker');
    const queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    const metrics = createWorkerMetrics({ defaultMetrics: false });
    const worker = new Worker(
      queueName,
      async (job) => {
        if (job.name === 'job_end') throw new UnrecoverableError('400');
        return 'ok';
      },
      { connection: { url: TEST_REDIS_URL, maxRetriesPerRequest: null }, autorun: false },
    );
    observeWorker(worker, metrics);
    try {
      await queue.addBulk([
        { name: 'job_end', data: {} },
        { name: 'loan', data: {} },
        { name: 'loan', data: {} },
      ]);
      const settled = new Promise<void>((resolve) => {
        let count = 0;
        const one = (): void => {
          count += 1;
          if (count === 3) resolve();
        };
        worker.on('completed', one);
        worker.on('failed', one);
      });
      void worker.run();
      await settled;

      const text = await metrics.registry.metrics();

      expect(text).toContain('svcws_worker_jobs_processed_total{action="loan"} 2');
      expect(text).toContain('svcws_worker_jobs_failed_total{action="job_end"} 1');
      expect(text).toContain(
        'svcws_worker_job_duration_seconds_count{action="job_end",outcome="failed"} 1',
      );
    } finally {
      await worker.close();
      await queue.close();
      await obliterateQueue(queueName);
    }
  });
});
