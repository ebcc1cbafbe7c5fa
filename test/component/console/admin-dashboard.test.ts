import request from 'supertest';
import express from 'express';
import type { Express } from 'express';
import { Queue } from 'bullmq';
import { createAdminDashboard } from '../../../src/console/pages/admin-dashboard';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

const TOKEN = 'admin-token-for-tests';

describe('admin dashboard at /admin/queues', () => {
  let queueName: string;
  let queue: Queue;

  beforeEach(async () => {
    queueName = uniqueQueueName('dashboard');
    queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    await queue.add('job_end', { id: '1' }, { jobId: 'evt-1' });
  });

  afterEach(async () => {
    await queue.close();
    await obliterateQueue(queueName);
  });

  const appWith = (token: string | undefined): Express =>
    express().use(createAdminDashboard({ queues: [queue], token }));

  it('answers 401 without a token and with a wrong one, naming the schemes it accepts', async () => {
    const app = appWith(TOKEN);

    const none = await request(app).get('/admin/queues');
    const wrong = await request(app).get('/admin/queues').set('Authorization', 'Bearer nope');
    const longer = await request(app)
      .get('/admin/queues/api/queues')
      .set('Authorization', `Bearer ${TOKEN}x`);

    expect([none.status, wrong.status, longer.status]).toEqual([401, 401, 401]);
    expect(none.body).toEqual({
      status: 401,
      error: 'unauthorized',
      message: 'a valid admin token is required',
    });
    expect(none.headers['www-authenticate']).toContain('Bearer realm="admin"');
    expect(wrong.text).not.toContain(TOKEN);
  });

  it('serves the board and the queue API with the bearer token, or Basic with the token as password', async () => {
    const app = appWith(TOKEN);

    const page = await request(app).get('/admin/queues').set('Authorization', `Bearer ${TOKEN}`);
    const api = await request(app)
      .get('/admin/queues/api/queues')
      .set('Authorization', `Basic ${Buffer.from(`ops:${TOKEN}`).toString('base64')}`);

    expect(page.status).toBe(200);
    expect(page.text).toContain('<html');
    expect(api.status).toBe(200);
    expect(JSON.stringify(api.body)).toContain(queueName);
    expect(JSON.stringify(api.body)).toContain('"readOnlyMode":true');
  });

  it('refuses changes: retrying a job through the API does nothing in read-only mode', async () => {
    const app = appWith(TOKEN);

    const res = await request(app)
      .put(`/admin/queues/api/queues/${queueName}/evt-1/retry/failed`)
      .set('Authorization', `Bearer ${TOKEN}`);
    const cleaned = await request(app)
      .put(`/admin/queues/api/queues/${queueName}/clean/waiting`)
      .set('Authorization', `Bearer ${TOKEN}`);

    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(cleaned.status).toBeGreaterThanOrEqual(400);
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 1 });
  });

  it('does not exist when ADMIN_TOKEN is unset', async () => {
    const app = appWith(undefined);

    const res = await request(app).get('/admin/queues').set('Authorization', 'Bearer anything');

    expect(res.status).toBe(404);
  });
});
