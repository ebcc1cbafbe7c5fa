import { loanEventJson } from '../../helpers/loan-event';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import type { Queue } from 'bullmq';
import type { RejectedStore } from '../../../src/events/rejected-store';
import { institutionQueueName } from '../../../src/institutions/institution-queue-name';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';
import type { CapturedLogger } from '../../helpers/capture-logger';
import { listenerUnderTest } from '../../helpers/listener-under-test';
import type { ListenerUnderTest } from '../../helpers/listener-under-test';

const A = { code: '01AAA_INST', secret: 'secret-of-member-a-0001' };
const B = { code: '01BBB_INST', secret: 'secret-of-member-b-0002' };

const loanEvent = loanEventJson;

describe('a consortium on one listener: WEBHOOK_PATH/{code}, each member with its own secret', () => {
  let dir: string;
  let listener: ListenerUnderTest;
  let queueA: Queue;
  let queueB: Queue;
  let log: CapturedLogger;
  let rejected: RejectedStore;
  let app: Express;
  let metricsText: () => Promise<string>;

  beforeAll(async () => {
    // The listener process as bin/web.ts builds it, from an INSTITUTIONS_FILE; the worker's keys
    // in the file are not used by the listener.
    dir = await mkdtemp(join(tmpdir(), 'svc-consortium-listener-'));
    const file = join(dir, 'institutions.yaml');
    await writeFile(
      file,
      `institutions:\n${[A, B]
        .map(
          (member) =>
            `  - code: ${member.code}\n    webhookSecret: \${SECRET_${member.code}}\n` +
            `    apiKey: unused-by-the-listener\n    baseUrl: http://127.0.0.1:1\n`,
        )
        .join('')}`,
    );
    listener = listenerUnderTest({
      env: {
        INSTITUTIONS_FILE: file,
        WEBHOOK_SECRET: undefined,
        [`SECRET_${A.code}`]: A.secret,
        [`SECRET_${B.code}`]: B.secret,
      },
    });
    const queueOf = (code: string): Queue => {
      const name = institutionQueueName(listener.queueName, code);
      const found = listener.process.queues.find((one) => one.queue.name === name);
      if (found === undefined) throw new Error(`no queue ${name}`);
      return found.queue;
    };
    queueA = queueOf(A.code);
    queueB = queueOf(B.code);
    ({ app, log, rejected } = listener);
    metricsText = () => listener.process.metrics.registry.metrics();
  });
  afterAll(async () => {
    await listener.close();
    await rm(dir, { recursive: true, force: true });
  });

  const post = (code: string, body: string, secret: string) =>
    request(app)
      .post(`/webhooks/${code}`)
      .set('content-type', 'application/json')
      .set('x-svc-signature', signWebhookBody(secret, body))
      .send(body);

  it('queues a delivery signed with the member secret on its own queue, stamped with the path institution when the body has none', async () => {
    const answer = await post(A.code, loanEvent('1001'), A.secret);
    expect(answer.status).toBe(200);
    const job = await queueA.getJob('evt-1001');
    expect(job?.data).toMatchObject({ id: '1001', institution: { value: A.code } });
    expect(await queueB.getJob('evt-1001')).toBeUndefined();

    const named = await post(B.code, loanEvent('1002', B.code), B.secret);
    expect(named.status).toBe(200);
    expect((await queueB.getJob('evt-1002'))?.data).toMatchObject({
      institution: { value: B.code },
    });
  });

  it("refuses a delivery signed with another member's secret (401)", async () => {
    const answer = await post(A.code, loanEvent('1003', A.code), B.secret);
    expect(answer.status).toBe(401);
    expect(await queueA.getJob('evt-1003')).toBeUndefined();
  });

  it('refuses and keeps a delivery signed for A whose body names B; it is queued nowhere', async () => {
    const answer = await post(A.code, loanEvent('1004', B.code), A.secret);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'wrong_institution' });
    expect(await queueA.getJob('evt-1004')).toBeUndefined();
    expect(await queueB.getJob('evt-1004')).toBeUndefined();
    const kept = await rejected.list();
    expect(kept).toContainEqual(
      expect.objectContaining({ eventId: '1004', status: 400, institution: A.code }),
    );
  });

  it('answers the challenge on each member path and 404 on an unknown code', async () => {
    const known = await request(app).get(`/webhooks/${B.code}`).query({ challenge: 'abc' });
    expect(known.status).toBe(200);
    expect(known.body).toEqual({ challenge: 'abc' });
    expect(
      (await request(app).get('/webhooks/01ZZZ_INST').query({ challenge: 'abc' })).status,
    ).toBe(404);
    // The single-institution path is not served in consortium mode.
    expect((await post('', loanEvent('1005'), A.secret)).status).toBe(404);
  });

  it('answers 404 to an unknown code before reading a byte of the body', async () => {
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const { port } = server.address() as AddressInfo;
    try {
      const body = loanEvent('1006');
      const head = [
        'POST /webhooks/01ZZZ_INST HTTP/1.1',
        'Host: 127.0.0.1',
        'Content-Type: application/json',
        `X-Svc-Signature: ${signWebhookBody(A.secret, body)}`,
        // Promised but never sent: an answer can only come before the body is read.
        'Content-Length: 100000',
        '',
        '',
      ].join('\r\n');
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
          if (text.includes('\r\n\r\n')) {
            socket.destroy();
            resolve(text);
          }
        });
        socket.on('error', reject);
        setTimeout(() => reject(new Error('no answer before the body')), 3000);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 404/);
      expect(answer.toLowerCase()).toContain('connection: close');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('names the institution in the delivery log lines and the metrics', async () => {
    await post(B.code, loanEvent('1007'), B.secret);
    const line = log.lines().find((entry) => entry.msg === 'delivery' && entry.eventId === '1007');
    expect(line).toMatchObject({ institution: B.code, outcome: 'queued' });
    const text = await metricsText();
    expect(text).toMatch(
      new RegExp(`svcws_webhook_deliveries_total\\{[^}]*institution="${B.code}"[^}]*\\} \\d`),
    );
    expect(text).toMatch(
      new RegExp(`svcws_webhook_rejected_total\\{[^}]*institution="${A.code}"[^}]*\\} 1`),
    );
    expect(text).toMatch(
      new RegExp(
        `svcws_webhook_last_event_timestamp_seconds\\{institution="${B.code}",action="loan"\\} \\d`,
      ),
    );
  });
});
