import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox } from '@svcws/sandbox';
import type { RunningSandbox } from '@svcws/sandbox';
import { createLogger } from '../../../src/logger';
import { eventually } from '../../component/routes/support/route-events';
import { listenerUnderTest, TEST_SECRET } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';
import { startOtlpSink } from '../../helpers/otlp-sink';
import type { OtlpSink } from '../../helpers/otlp-sink';
import { TEST_REDIS_URL } from '../../helpers/redis';
import { captureTraces } from '../../helpers/trace-capture';
import { spawnWorker } from '../worker/support/child-process';
import type { ChildWorker } from '../worker/support/child-process';

const API_KEY = 'sandbox-key';
const capture = captureTraces('svcws-listener');

afterAll(() => capture.close());

describe('the worker process with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let running: RunningSandbox;
  let listener: ListenerUnderTest;
  let server: Server;
  let sink: OtlpSink;
  let worker: ChildWorker;
  let recordsDir: string;

  afterEach(async () => {
    if (worker.child.exitCode === null && worker.child.signalCode === null) {
      worker.child.kill('SIGKILL');
    }
    await worker.exited();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await listener.close();
    await running.close();
    await sink.close();
    await rm(recordsDir, { recursive: true, force: true });
  });

  it("exports over OTLP http/json as svcws-worker, continuing the listener's trace, with the API calls and no key", async () => {
    running = await createSandbox({
      logger: createLogger({ level: 'silent', name: 'sandbox' }),
      config: { SANDBOX_JOB_DURATION_MS: 0 },
    }).start(0);
    sink = await startOtlpSink();
    const { telemetry } = capture.tracing;
    listener = listenerUnderTest(telemetry === undefined ? {} : { telemetry });
    server = listener.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    recordsDir = await mkdtemp(join(tmpdir(), 'svc-otlp-records-'));
    worker = spawnWorker('src/bin/worker.ts', {
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_NAME: listener.queueName,
      SVC_BASE_URL: running.url,
      SVC_API_KEY: API_KEY,
      RECORDS_DIR: recordsDir,
      WORKER_METRICS_PORT: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    await worker.waitForLine((line) => line.msg === 'worker ready');
    const admin = (path: string, body: unknown): Promise<Response> =>
      fetch(`${running.url}/sandbox${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const hook = `http://127.0.0.1:${String(port)}/webhooks`;
    expect((await admin('/webhooks', { url: hook, secret: TEST_SECRET })).status).toBe(201);
    await admin('/jobs/S7781/run', { records: 20, duration_ms: 0 });
    const stored = await worker.waitForLine((line) => line.msg === 'job_end: records stored');

    await eventually(
      () => capture.spans().some((span) => span.name === 'enqueue job_end'),
      'the listener enqueued',
      30_000,
    );
    const traceId = capture.one('enqueue job_end').spanContext().traceId;
    await eventually(
      () =>
        [`process ${listener.queueName}`, 'event job_end', 'download records'].every((name) =>
          sink.spans().some((span) => span.name === name),
        ),
      'the worker exported',
      30_000,
    );
    const spans = sink.spans().filter((span) => span.traceId === traceId);
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(['svcws-worker']));
    expect(spans.map((span) => span.name)).toEqual(
      expect.arrayContaining([
        `process ${listener.queueName}`,
        'event job_end',
        'download records',
      ]),
    );
    // The client's two calls (the instance, the download) as node:http client spans, the key
    // redacted from their URLs.
    const calls = spans.filter((span) => span.name === 'GET');
    expect(calls).toHaveLength(2);
    expect(JSON.stringify(sink.spans())).not.toContain(API_KEY);
    // The worker's log line about the event leads to its trace.
    expect(stored).toMatchObject({ trace_id: traceId });
  });
});
