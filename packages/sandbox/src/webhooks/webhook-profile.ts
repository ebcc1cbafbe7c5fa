import { z } from 'zod';

/**
 * The event kinds the sandbox can send (each kind the listener takes: src/events/kinds/); a profile
 * subscribes to some or (no `events`) all.
 */
const EVENT_KINDS = ['job_end', 'loan', 'bib', 'user', 'request', 'item', 'notification'] as const;
export const EventKind = z.enum(EVENT_KINDS);
export type EventKind = z.infer<typeof EventKind>;

/** The admin route's registration body (spec §6: a webhook integration profile). */
export const WebhookProfileInput = z.object({
  url: z.url({ protocol: /^https?$/ }),
  secret: z.string().min(1),
  format: z.enum(['json', 'xml']).default('json'),
  events: z
    .array(
      z
        .string()
        .transform((kind) => kind.toLowerCase())
        .pipe(EventKind),
    )
    .min(1)
    .optional(),
});
export type WebhookProfileInput = z.infer<typeof WebhookProfileInput>;

export interface WebhookProfile {
  readonly id: string;
  readonly url: string;
  readonly secret: string;
  readonly format: 'json' | 'xml';
  readonly events?: readonly EventKind[];
  readonly createdAt: string;
}

/** A profile as the admin routes show it: never the secret. */
export function publicProfile({
  secret: _secret,
  ...profile
}: WebhookProfile): Omit<WebhookProfile, 'secret'> {
  return profile;
}
