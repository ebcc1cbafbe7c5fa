import { checkChallenge, signWebhookBody, toPlatformXml } from 'svcws-listener';
import type { Logger } from 'svcws-listener';
import type { TimerSet } from '../timer-set';
import type { WebhookEvent } from './sample-events';
import type { EventKind, WebhookProfile, WebhookProfileInput } from './webhook-profile';

/** Retry schedule after a 5xx, a network error or a timeout: 1 h, 3 h, 6 h (then given up). */
const RETRY_DELAYS_MS = [3_600_000, 10_800_000, 21_600_000] as const;

export interface Delivery {
  readonly event_id: string;
  readonly action: string;
  readonly profile_id: string;
  readonly url: string;
  readonly attempt: number;
  /** The listener's HTTP status; null for a network error or a timeout. */
  readonly status: number | null;
  /** `lost`: never sent (SANDBOX_WEBHOOK_LOSE_ONE_IN), as a platform that fails to send. */
  readonly outcome: 'delivered' | 'retry_scheduled' | 'failed' | 'lost';
  readonly error?: string;
  readonly time: string;
  readonly next_attempt_at?: string;
}

export interface WebhookSenderOptions {
  readonly logger: Logger;
  readonly timers: TimerSet;
  readonly now: () => Date;
  /** SANDBOX_RETRY_SCALE: multiplies RETRY_DELAYS_MS (0.001 → 3.6 s, 10.8 s, 21.6 s). */
  readonly retryScale: number;
  /** Per request, challenge and delivery alike. */
  readonly timeoutMs: number;
  /**
   * SANDBOX_WEBHOOK_LOSE_ONE_IN: 0 sends every event, 1 loses every one, N loses the Nth, 2Nth, …
   * event published (counted over all profiles): what a receiver's reconciliation must make up for.
   */
  readonly loseOneIn?: number;
}

export type RegisterResult = { ok: true; profile: WebhookProfile } | { ok: false; reason: string };

export interface WebhookSender {
  register(input: WebhookProfileInput): Promise<RegisterResult>;
  unregister(id: string): boolean;
  profiles(): readonly WebhookProfile[];
  deliveries(): readonly Delivery[];
  /** Sends the event to every profile subscribed to its kind; resolves when first attempts end. */
  publish(kind: EventKind, event: WebhookEvent): Promise<void>;
  /** Changes SANDBOX_WEBHOOK_LOSE_ONE_IN from now on (0: lose nothing); the count restarts. */
  loseOneIn(n: number): void;
  /** Forgets profiles and deliveries (timers are the caller's TimerSet). */
  reset(): void;
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const { logger, now } = options;
  const state: SenderState = { profiles: new Map(), deliveries: [], nextProfile: 1 };
  const attempt = createAttempt(options, state.deliveries);
  const loss = createLossCount(options.loseOneIn ?? 0);
  return {
    register: async (input) => registerProfile(options, state, input),
    unregister: (id) => state.profiles.delete(id),
    profiles: () => [...state.profiles.values()],
    deliveries: () => [...state.deliveries],
    async publish(kind, event) {
      const targets = [...state.profiles.values()].filter(
        (profile) => !profile.events || profile.events.includes(kind),
      );
      if (loss.lost()) {
        const time = now().toISOString();
        for (const profile of targets) state.deliveries.push(lostDelivery(event, profile, time));
        logger.info({ eventId: event.id, action: event.action }, 'webhook lost on purpose');
        return;
      }
      await Promise.all(
        targets.map((profile) => attempt(profile, event, encode(event, profile.format), 1)),
      );
    },
    loseOneIn: (n) => loss.reset(n),
    reset() {
      state.profiles.clear();
      state.deliveries.length = 0;
    },
  };
}

/** What the sender's methods share: the registered profiles and every delivery made. */
interface SenderState {
  readonly profiles: Map<string, WebhookProfile>;
  readonly deliveries: Delivery[];
  nextProfile: number;
}

/** A profile registered once its URL answers the challenge (the platform's own check). */
async function registerProfile(
  { logger, now, timeoutMs }: WebhookSenderOptions,
  state: SenderState,
  input: WebhookProfileInput,
): Promise<RegisterResult> {
  const reason = await checkChallenge(input.url, timeoutMs);
  if (reason !== undefined) {
    logger.warn({ url: input.url, reason }, 'webhook profile refused');
    return { ok: false, reason };
  }
  const profile: WebhookProfile = {
    id: `webhook-${String(state.nextProfile++)}`,
    url: input.url,
    secret: input.secret,
    format: input.format,
    ...(input.events ? { events: input.events } : {}),
    createdAt: now().toISOString(),
  };
  state.profiles.set(profile.id, profile);
  logger.info(
    { profileId: profile.id, url: profile.url, format: profile.format },
    'webhook profile registered',
  );
  return { ok: true, profile };
}

/** SANDBOX_WEBHOOK_LOSE_ONE_IN over the events published since it was last set. */
function createLossCount(initial: number): { lost(): boolean; reset(n: number): void } {
  let loseOneIn = initial;
  let published = 0;
  return {
    lost: () => {
      published += 1;
      return loseOneIn > 0 && published % loseOneIn === 0;
    },
    reset: (n) => {
      loseOneIn = n;
      published = 0;
    },
  };
}

function lostDelivery(event: WebhookEvent, profile: WebhookProfile, time: string): Delivery {
  return {
    event_id: event.id,
    action: event.action,
    profile_id: profile.id,
    url: profile.url,
    attempt: 1,
    status: null,
    outcome: 'lost',
    time,
  };
}

type Attempt = (
  profile: WebhookProfile,
  event: WebhookEvent,
  body: Buffer,
  number: number,
) => Promise<void>;

/** One delivery attempt: POST, record the outcome, and schedule the next attempt when one is due. */
function createAttempt(options: WebhookSenderOptions, deliveries: Delivery[]): Attempt {
  const { logger, timers, now, retryScale, timeoutMs } = options;
  const attempt: Attempt = async (profile, event, body, number) => {
    const base = {
      event_id: event.id,
      action: event.action,
      profile_id: profile.id,
      url: profile.url,
      attempt: number,
    };
    const sent = await post(profile, body, timeoutMs);
    const { status } = sent;
    const time = now().toISOString();
    const logged = { eventId: event.id, action: event.action, profileId: profile.id };
    if (status !== null && status >= 200 && status < 300) {
      deliveries.push({ ...base, status, outcome: 'delivered', time });
      logger.info({ ...logged, attempt: number, httpStatus: status }, 'webhook delivered');
      return;
    }
    const error = sent.error ?? `listener answered ${String(status)}`;
    // A 4xx says the listener refuses this body: sending it again cannot succeed.
    const retryable = status === null || status >= 500;
    const delay = RETRY_DELAYS_MS[number - 1];
    if (!retryable || delay === undefined) {
      deliveries.push({ ...base, status, outcome: 'failed', error, time });
      logger.warn({ ...logged, attempt: number, httpStatus: status }, 'webhook failed');
      return;
    }
    const waitMs = delay * retryScale;
    const nextAt = new Date(now().getTime() + waitMs).toISOString();
    deliveries.push({
      ...base,
      status,
      outcome: 'retry_scheduled',
      error,
      time,
      next_attempt_at: nextAt,
    });
    logger.info(
      { eventId: event.id, profileId: profile.id, attempt: number, httpStatus: status, waitMs },
      'webhook retry scheduled',
    );
    timers.after(waitMs, () => {
      void attempt(profile, event, body, number + 1);
    });
  };
  return attempt;
}

/** The listener's status, or the network error or timeout that stood in for one. */
async function post(
  profile: WebhookProfile,
  body: Buffer,
  timeoutMs: number,
): Promise<{ status: number | null; error?: string }> {
  let status: number | null = null;
  try {
    const response = await fetch(profile.url, {
      method: 'POST',
      headers: {
        'Content-Type': profile.format === 'xml' ? 'application/xml' : 'application/json',
        'X-Svc-Signature': signWebhookBody(profile.secret, body),
        'User-Agent': 'svcws-sandbox',
      },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = response.status;
    await response.arrayBuffer();
    return { status };
  } catch (caught) {
    // A body that breaks off after the status keeps the status, with the error beside it.
    const error = caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught);
    return { status, error };
  }
}

/** The exact bytes that are signed and sent: JSON, or XML with root `<webhook>`. */
function encode(event: WebhookEvent, format: 'json' | 'xml'): Buffer {
  return Buffer.from(
    format === 'xml' ? toPlatformXml('webhook', { ...event }) : JSON.stringify(event),
    'utf8',
  );
}
