import express, { Router } from 'express';
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { JobStore } from './jobs/job-store';
import { SandboxError } from './sandbox-error';
import { EventKind, publicProfile, WebhookProfileInput } from './webhooks/webhook-profile';
import type { WebhookSender } from './webhooks/webhook-sender';

export interface AdminDeps {
  readonly jobs: () => JobStore;
  readonly webhooks: WebhookSender;
  /** Publishes an event of this kind (job_end needs an ended instance); returns it. */
  readonly fire: (kind: EventKind, instanceId?: string) => Promise<Record<string, unknown>>;
  readonly run: (jobId: string, records?: number, durationMs?: number) => Record<string, unknown>;
  readonly reset: (keepWebhooks: boolean) => void;
}

const FireInput = z.object({
  kind: z
    .string()
    .transform((kind) => kind.toLowerCase())
    .pipe(EventKind),
  instance_id: z.string().optional(),
});
const RunInput = z.object({
  records: z.coerce.number().int().min(0).max(100_000_000).optional(),
  duration_ms: z.coerce.number().int().min(0).max(3_600_000).optional(),
});

const LossInput = z.object({ one_in: z.coerce.number().int().min(0).max(1_000_000) });

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** The admin routes stay on the machine even if the sandbox is ever bound wider. */
const loopbackOnly: RequestHandler = (req, _res, next) => {
  next(
    LOOPBACK.has(req.socket.remoteAddress ?? '')
      ? undefined
      : new SandboxError(403, 'FORBIDDEN', 'Admin routes answer loopback only'),
  );
};

/**
 * `/sandbox/...`: test and demo controls, no apikey (README.md has curl examples). Answers
 * are plain JSON (`{ error }` on refusal), not the platform's shapes — this is not the platform.
 */
export function createAdminRouter(deps: AdminDeps): Router {
  const router = Router();
  router.use(loopbackOnly, express.json({ limit: '100kb' }));
  addWebhookRoutes(router, deps.webhooks);
  router.post('/events', async (req, res) => {
    const input = parseInput(FireInput, req.body);
    res.status(202).json({ event: await deps.fire(input.kind, input.instance_id) });
  });
  router.post('/jobs/:job_id/run', (req, res) => {
    const input = parseInput(RunInput, { ...req.query, ...(req.body as object | undefined) });
    res
      .status(201)
      .json({ job_instance: deps.run(req.params.job_id, input.records, input.duration_ms) });
  });
  router.post('/reset', (req, res) => {
    deps.reset(req.query.keep_webhooks === 'true');
    res.status(204).end();
  });
  router.use(
    (error: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
      if (error instanceof SandboxError) {
        res.status(error.status).json({ error: error.message });
        return;
      }
      next(error);
    },
  );
  return router;
}

/** A body read by its schema, or a 422 naming what is wrong. */
function parseInput<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw new SandboxError(422, 'INVALID_INPUT', z.prettifyError(parsed.error));
  return parsed.data;
}

/** The webhook profiles, their simulated loss and the deliveries made. */
function addWebhookRoutes(router: Router, webhooks: WebhookSender): void {
  router.post('/webhooks', async (req, res) => {
    const result = await webhooks.register(parseInput(WebhookProfileInput, req.body));
    if (!result.ok) {
      res.status(422).json({ error: result.reason });
      return;
    }
    res.status(201).json(publicProfile(result.profile));
  });
  router.get('/webhooks', (_req, res) => {
    res.json({ profiles: webhooks.profiles().map(publicProfile) });
  });
  router.delete('/webhooks/:id', (req, res) => {
    res.status(webhooks.unregister(req.params.id) ? 204 : 404).end();
  });
  router.post('/webhooks/loss', (req, res) => {
    webhooks.loseOneIn(parseInput(LossInput, req.body).one_in);
    res.status(204).end();
  });
  router.get('/deliveries', (req, res) => {
    const eventId = typeof req.query.event_id === 'string' ? req.query.event_id : undefined;
    res.json({
      deliveries: webhooks
        .deliveries()
        .filter((delivery) => eventId === undefined || delivery.event_id === eventId),
    });
  });
}
