import { Queue, Worker } from 'bullmq';
import { inSpan } from '../../../src/tracing/in-span';
import { eventually } from '../../component/routes/support/route-events';
import { obliterateQueue, TEST_REDIS_URL, uniqueQueueName } from '../../helpers/redis';
import { attributeText, captureTraces } from '../../helpers/trace-capture';

const PATRON = 'Okafor, Amara <amara@example.org>';
const capture = captureTraces();

afterAll(() => capture.close());

describe("a job's result and failure in its spans", () => {
  const name = uniqueQueueName('failure-spans');
  let queue: Queue;
  let worker: Worker;

  beforeEach(() => {
    const { telemetry } = capture.tracing;
    const connection = { url: TEST_REDIS_URL };
    queue = new Queue(name, { connection, ...(telemetry === undefined ? {} : { telemetry }) });
    worker = new Worker(
      name,
      (job) =>
        inSpan(`event ${job.name}`, { attributes: {} }, () => {
          if (job.name === 'fails') {
            const error = new Error(`cannot deliver to ${PATRON}`);
            throw Object.assign(error, { code: 'ECONNREFUSED' });
          }
          return Promise.resolve({ delivered: PATRON });
        }),
      { connection, ...(telemetry === undefined ? {} : { telemetry }) },
    );
  });

  afterEach(async () => {
    await worker.close();
    await queue.close();
    await obliterateQueue(name);
  });

  it('say the job, its attempts and the error type, never the result or the message', async () => {
    await queue.add('fails', { who: 'event data' }, { attempts: 1 });
    await queue.add('succeeds', { who: 'event data' });
    await eventually(
      () => capture.spans().filter((span) => span.name === `process ${name}`).length === 2,
      'both jobs processed',
      20_000,
    );
    const spans = capture.spans();
    const failed = capture.one('event fails');
    // Type and code of the error are there (the span says what failed), its message is not.
    expect(failed.status).toMatchObject({ message: 'ECONNREFUSED' });
    expect(failed.events.map((event) => event.attributes)).toContainEqual(
      expect.objectContaining({ 'exception.type': 'ECONNREFUSED' }),
    );
    const processed = spans.filter((span) => span.name === `process ${name}`);
    expect(processed.flatMap((span) => span.events.map((event) => event.name)).sort()).toEqual([
      'job completed',
      'job failed',
    ]);
    expect(processed.map((span) => span.attributes['bullmq.job.name']).sort()).toEqual([
      'fails',
      'succeeds',
    ]);
    const text = attributeText(spans) + JSON.stringify(spans.map((span) => span.status));
    expect(text).not.toContain('Okafor');
    expect(text).not.toContain('event data');
  });
});
