import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenerUnderTest, TEST_SECRET } from '../../../../test/helpers/listener-under-test';
import type { ListenerUnderTest } from '../../../../test/helpers/listener-under-test';
import { eventKinds } from '../../../../src/events/kinds/event-kinds';
import { startSandbox } from '../../src/testing/start-sandbox';
import { EventKind } from '../../src/webhooks/webhook-profile';
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

/** Every kind the sandbox fires without a job run, and the subject each one carries. */
const SUBJECT_OF: Readonly<Record<string, string>> = {
  loan: 'item_loan',
  bib: 'bib',
  user: 'webhook_user',
  request: 'user_request',
  item: 'item',
  notification: 'notification_data',
};
const FIRED_KINDS = Object.keys(SUBJECT_OF);

it('can fire every kind the listener takes (src/events/kinds/)', () => {
  const listenerKinds = eventKinds.map((kind) => kind.name).sort();
  expect([...EventKind.options].sort()).toEqual(listenerKinds);
  expect([...FIRED_KINDS, 'job_end'].sort()).toEqual(listenerKinds);
});

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

    it('fires every kind the listener takes, each delivered, accepted and queued', async () => {
      // Not a reset: it restarts the event ids, and the listener would take a loan with the
      // job_end's id above for a redelivery. One profile, registered afresh.
      const profiles = (await sandbox.admin('GET', '/webhooks')).json.profiles as { id: string }[];
      for (const profile of profiles) await sandbox.admin('DELETE', `/webhooks/${profile.id}`);
      expect(
        (await sandbox.admin('POST', '/webhooks', { url: webhookUrl, secret: TEST_SECRET, format }))
          .status,
      ).toBe(201);
      const fired = new Map<string, string>();
      for (const kind of FIRED_KINDS) {
        const answer = await sandbox.admin('POST', '/events', { kind });
        expect(answer.status).toBe(202);
        fired.set(kind, (answer.json.event as { id: string }).id);
      }
      const delivered = await until(async () => {
        const list = await sandbox.admin('GET', '/deliveries');
        const rows = (list.json.deliveries as { event_id: string; status?: number }[]).filter(
          (row) => [...fired.values()].includes(row.event_id),
        );
        return rows.length === FIRED_KINDS.length ? rows : undefined;
      }, 'a delivery of each kind');
      expect(delivered.map((row) => row.status)).toEqual(FIRED_KINDS.map(() => 200));

      const jobs = await listener.events.queue.getJobs(['waiting']);
      for (const [kind, id] of fired) {
        const job = jobs.find((one) => (one.data as { id?: string }).id === id);
        expect(job?.data).toMatchObject({ action: kind, meta: { format } });
        expect((job?.data as Record<string, unknown>)[SUBJECT_OF[kind] ?? '']).toEqual(
          expect.any(Object),
        );
      }
      // A notification's letter and an item's barcode come through as the platform sent them.
      const notice = jobs.find(
        (one) => (one.data as { id?: string }).id === fired.get('notification'),
      );
      expect(notice?.data).toMatchObject({
        notification_data: { letter_code: 'LoanStatusNoticeLetter', channel: 'EMAIL' },
      });
      const item = jobs.find((one) => (one.data as { id?: string }).id === fired.get('item'));
      expect(item?.data).toMatchObject({
        item: { item_data: { barcode: expect.stringMatching(/^3900\d{4}$/) } },
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
