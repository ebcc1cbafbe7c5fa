import express from 'express';

/**
 * The ingress bench's floor: Express 5 reading the raw body (as express.raw does for a webhook)
 * and answering 200, nothing else. Listens on PORT; its CPU is read by cpu-probe.ts.
 */
const app = express();
app.post('/webhooks', express.raw({ type: () => true, limit: '1mb' }), (_req, res) => {
  res.status(200).json({ status: 'ok' });
});
app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
