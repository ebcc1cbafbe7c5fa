import { createHmac, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pino from 'pino';

/**
 * The ingress bench's "typical listener": a webhook receiver written the way public examples
 * write one — express.raw, HMAC + timingSafeEqual, JSON.parse, one BullMQ add with the event id as
 * job id, one pino line (pino's defaults: JSON to stdout), 200. It checks no format, schema or
 * charset, keeps no refused delivery, counts no metrics and redacts nothing. Listens on PORT.
 */
const secret = process.env.WEBHOOK_SECRET ?? '';
const connection = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
  maxRetriesPerRequest: null,
});
const queue = new Queue(process.env.QUEUE_NAME ?? 'bench-typical', { connection });
const logger = pino();

const app = express();
app.post('/webhooks', express.raw({ type: () => true, limit: '1mb' }), async (req, res) => {
  const body = req.body as Buffer;
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(req.get('x-svc-signature') ?? '', 'base64');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    res.status(401).json({ error: 'bad signature' });
    return;
  }
  let event: { id?: unknown; action?: unknown };
  try {
    event = JSON.parse(body.toString('utf8')) as { id?: unknown; action?: unknown };
  } catch {
    res.status(400).json({ error: 'invalid JSON' });
    return;
  }
  try {
    // BullMQ refuses a custom id that reads as an integer, as some of the platform's all-digit
    // event ids do: the usual fix is a prefix.
    await queue.add(String(event.action), event, { jobId: `event-${String(event.id)}` });
  } catch (error) {
    logger.error({ err: error }, 'enqueue failed');
    res.status(503).json({ error: 'try again' });
    return;
  }
  logger.info({ eventId: event.id, action: event.action }, 'event queued');
  res.status(200).json({ status: 'queued' });
});
// What a load generator waits on before it sends (bench/ingress-profile.bench.ts, as for ours).
app.get('/readyz', (_req, res) => {
  res.status(200).json({ status: 'ready' });
});
app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
