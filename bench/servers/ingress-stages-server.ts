import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { createSignatureVerifier } from '../../src/http/webhook-signature';
import { parseJsonEvent } from '../../src/events/parse-json-event';
import { normalizeEvent } from '../../src/events/normalize-event';
import { createLogger } from '../../src/logger';
import { reportCpuPerRequest } from './report-cpu-per-request';
import { INGRESS_STAGES } from './ingress-stages';
import type { IngressStage } from './ingress-stages';

/**
 * Diagnostic for the ingress benchmark: bare Express 5 plus the listener's own stages, one more
 * at a time, each the real function the listener calls — so the bench can show what each stage
 * the listener needs costs in req/s and CPU, apart from Redis. Prints `port=<n>` when listening.
 */
function main(): void {
  const upTo = process.argv[2] as IngressStage;
  const depth = INGRESS_STAGES.indexOf(upTo) + 1;
  if (depth === 0) throw new Error(`usage: ingress-stages-server.ts ${INGRESS_STAGES.join('|')}`);
  const runs = (stage: IngressStage): boolean => INGRESS_STAGES.indexOf(stage) < depth;
  const verify = createSignatureVerifier({
    current: process.env.BENCH_SECRET ?? 'bench-secret-of-the-ingress',
  });
  const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const logger = createLogger({ level: 'info', name: 'bench', destination: sink });
  const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

  const app = express();
  app.post('/webhooks', express.raw({ type: () => true, limit: '1mb' }), (req, res) => {
    const started = process.hrtime.bigint();
    const body = req.body as Buffer;
    if (runs('signature') && !verify(body, req.get('x-svc-signature'))) {
      res.status(401).json({ error: 'bad_signature' });
      return;
    }
    let parsed: unknown;
    if (runs('parse')) parsed = parseJsonEvent(strictUtf8.decode(body));
    const id = runs('normalize')
      ? normalizeEvent(parsed, {
          format: 'json',
          receivedAt: new Date().toISOString(),
          requestId: 'bench',
        }).id
      : (parsed as { id?: unknown } | undefined)?.id;
    res.status(200).json({ status: 'ok', id });
    if (runs('log')) {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        { eventId: id, outcome: 'queued', status: 200, bytes: body.length, durationMs },
        'delivery',
      );
    }
  });
  const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    process.stdout.write(`port=${(server.address() as AddressInfo).port}\n`);
  });
  reportCpuPerRequest(server);
  process.on('SIGTERM', () => {
    server.close();
    process.exit(0);
  });
}

main();
