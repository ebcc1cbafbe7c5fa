import http from 'node:http';
import type { Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { signWebhookBody } from '../../../../src/signature/sign-webhook-body';

export interface DeliveryRecord {
  id: string;
  sentAt: number;
  answeredAt: number;
  /** The HTTP status; 0 when the request itself failed (refused, reset, 5 s without an answer). */
  status: number;
  /** With status 0: how it failed (`timeout` after 5 s without an answer, else the error's code). */
  failure?: string;
}

export interface DeliveryRun {
  /** Records so far (answered ones only). */
  answered: () => readonly DeliveryRecord[];
  /** Stops sending, waits for the requests in flight, and gives every record. */
  stop: () => Promise<DeliveryRecord[]>;
}

const template = JSON.parse(
  readFileSync(join(__dirname, '../../../fixtures/events/loan-created.json'), 'utf8'),
) as Record<string, unknown>;

/**
 * Signed deliveries (LOAN_CREATED unless `bodyOf` makes them) at a steady rate over real HTTP, as the platform sends them:
 * each its own event id (`<idPrefix><n>`), each request on its own (no waiting for the previous
 * answer), given up after 5 s as the sender does (spec §6).
 */
export function startDeliveries(options: {
  port: number;
  path?: string;
  secret: string;
  perSecond: number;
  idPrefix: string;
  /** The body of the delivery with this id (the n-th sent, from 0); unset: a LOAN_CREATED. */
  bodyOf?: (id: string, n: number) => string;
}): DeliveryRun {
  const bodyOf = options.bodyOf ?? ((id: string) => JSON.stringify({ ...template, id }));
  const agent = keepAliveAgent();
  const records: DeliveryRecord[] = [];
  const inFlight = new Set<Promise<void>>();
  const started = Date.now();
  let sent = 0;
  const tick = (): void => {
    const due = Math.floor(((Date.now() - started) * options.perSecond) / 1000);
    for (; sent < due; sent += 1) {
      const id = `${options.idPrefix}${String(sent).padStart(6, '0')}`;
      const request = deliver(agent, options, id, bodyOf(id, sent)).then((record) => {
        records.push(record);
      });
      inFlight.add(request);
      void request.finally(() => inFlight.delete(request));
    }
  };
  const timer = setInterval(tick, 5);
  return {
    answered: () => records,
    stop: async () => {
      clearInterval(timer);
      await Promise.all([...inFlight]);
      agent.destroy();
      return records;
    },
  };
}

/**
 * Connections kept open between deliveries, as a pooled sender keeps them, closed by the sender
 * before the listener's announced idle time (`Keep-Alive: timeout=65`, KEEP_ALIVE_TIMEOUT_MS): a
 * connection left idle past that is one the listener may close as a delivery is written on it (a
 * reset, which the platform retries only after an hour). Node's agent reads the hint only with a
 * `timeout` of its own above it (keepSocketAlive in Node's _http_agent.js).
 */
function keepAliveAgent(): http.Agent {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 10 * 60_000 });
  agent.on('free', (socket: Socket) => freedAt.set(socket, Date.now()));
  return agent;
}

/** When each kept connection was last given back to the pool: a failure names its idle time. */
const freedAt = new WeakMap<Socket, number>();

function deliver(
  agent: http.Agent,
  options: { port: number; path?: string; secret: string },
  id: string,
  body: string,
): Promise<DeliveryRecord> {
  const sentAt = Date.now();
  return new Promise((resolve) => {
    let failure: string | undefined;
    let idle: number | undefined;
    const done = (status: number): void =>
      resolve({
        id,
        sentAt,
        answeredAt: Date.now(),
        status,
        ...(status === 0 ? { failure: failure ?? 'error' } : {}),
      });
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port: options.port,
        path: options.path ?? '/webhooks',
        method: 'POST',
        timeout: 5000,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'X-Svc-Signature': signWebhookBody(options.secret, body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
        res.on('error', () => done(0));
      },
    );
    req.on('socket', (socket: Socket) => {
      const freed = freedAt.get(socket);
      idle = freed === undefined ? undefined : Date.now() - freed;
    });
    req.on('timeout', () => {
      failure = 'timeout';
      req.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      failure ??= error.code ?? error.message;
      if (idle !== undefined) failure += ` on a connection idle ${String(idle)} ms`;
      done(0);
    });
    req.end(body);
  });
}
