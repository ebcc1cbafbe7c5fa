import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenerUnderTest, TEST_SECRET } from '../../../../test/helpers/listener-under-test';
import type { ListenerUnderTest } from '../../../../test/helpers/listener-under-test';
import { startSandbox } from '../../src/testing/start-sandbox';
import type { SandboxUnderTest } from '../../src/testing/start-sandbox';

async function until<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  tries = 100,
): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe.each(['json', 'xml'] as const)(
  'the sandbox delivering %s to the real listener',
  (format) => {
    let listener: ListenerUnderTest;
    let server: Server;
    let sandbox: SandboxUnderTest;
    let webhookUrl: string;

    beforeAll(async () => {
      listener = listenerUnderTest();
      server = listener.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
      sandbox = await startSandbox({ SANDBOX_JOB_DURATION_MS: 0 });
    });
    afterAll(async () => {
      await sandbox.close();
      await new Promise((resolve) => server.close(resolve));
      await listener.close();
    });

    it('registers through the challenge, then has its signed job_end accepted and queued', async () => {
      const registered = await sandbox.admin('POST', '/webhooks', {
        url: webhookUrl,
        secret: TEST_SECRET,
        format,
      });
      expect(registered.status).toBe(201);

      const run = await sandbox.admin('POST', '/jobs/S7781/run', { records: 7, duration_ms: 0 });
      expect(run.status).toBe(201);
      const instanceId = (run.json.job_instance as { id: string }).id;

      const delivery = await until(async () => {
        const list = await sandbox.admin('GET', '/deliveries');
        const rows = list.json.deliveries as { action: string; status?: number; outcome: string }[];
        return rows.find((row) => row.action === 'JOB_END' && row.outcome !== 'pending');
      }, 'the job_end delivery');
      expect(delivery).toMatchObject({ status: 200 });

      const [job] = await listener.events.queue.getJobs(['waiting']);
      expect(job?.name).toBe('job_end');
      expect(job?.data).toMatchObject({
        action: 'job_end',
        institution: { value: expect.any(String) },
        job_instance: {
          id: instanceId,
          job_info: { id: 'S7781', category: { value: 'IMPORT' } },
          counter: expect.arrayContaining([
            { type: expect.objectContaining({ value: 'TOTAL_RECORDS_IMPORTED' }), value: '7' },
          ]),
        },
        meta: { format },
      });
    });

    it('is refused when the listener does not know its secret (401, not retried)', async () => {
      await sandbox.admin('POST', '/reset');
      expect(
        (await sandbox.admin('POST', '/webhooks', { url: webhookUrl, secret: 'wrong', format }))
          .status,
      ).toBe(201);
      await sandbox.admin('POST', '/events', { kind: 'loan' });
      const rows = await until(async () => {
        const list = await sandbox.admin('GET', '/deliveries');
        const found = (list.json.deliveries as { status?: number; outcome: string }[]).filter(
          (row) => row.outcome !== 'pending',
        );
        return found.length > 0 ? found : undefined;
      }, 'the refused delivery');
      expect(rows).toEqual([expect.objectContaining({ status: 401, outcome: 'failed' })]);
    });
  },
);
