import { z } from 'zod';
import { eventKeyProblem } from './event-key-bounds';

/** A key every part of the system reads (ids, codes): within bounds, or the event is refused. */
const boundedKey = (schema: z.ZodString): z.ZodString =>
  schema.superRefine((value, context) => {
    const problem = eventKeyProblem(value);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  });

/**
 * A platform code field: `{"value": "IMPORT", "desc": "Import"}` (XML: `<category desc="Import">IMPORT</category>`).
 * Lenient: the platform also sends empty code objects (`{}`) and other keys (`name`, `link`).
 */
export const CodeValue = z.looseObject({
  value: z.string().optional(),
  desc: z.string().optional(),
});
export type CodeValue = z.infer<typeof CodeValue>;

/** A code the system keys on (the institution, the event code): its `value` is bounded. */
const KeyCodeValue = z.looseObject({
  value: boundedKey(z.string()).optional(),
  desc: z.string().optional(),
});

/** The platform's kinds are short words (`job_end`, `loan`): room to spare, but not a payload. */
const ACTION_MAX_LENGTH = 64;

/** Transport facts of one delivery; kept apart so the event itself is the same for JSON and XML. */
export const EventMeta = z.object({
  format: z.enum(['json', 'xml']),
  receivedAt: z.iso.datetime(),
  requestId: z.string(),
  /** Made by the worker's reconciliation from the instance, not delivered (docs/worker.md). */
  recovered: z.literal(true).optional(),
});
export type EventMeta = z.infer<typeof EventMeta>;

/**
 * The one event shape both body formats normalize into, and the BullMQ job's data (spec §6.2):
 * what the platform sent, in its JSON form. Subject objects (`job_instance`, `item_loan`, `bib`,
 * `notification_data`, …) and any other key stay under their own key; their field rules are in
 * `kinds/`.
 */
export const CanonicalEvent = z.looseObject({
  id: boundedKey(z.string().min(1)),
  /** Trimmed and lower-cased: the platform sends both `JOB_END` and `job_end`. */
  action: z
    .string()
    .min(1)
    .max(ACTION_MAX_LENGTH, `at most ${String(ACTION_MAX_LENGTH)} characters`)
    .regex(/^[a-z0-9_.-]+$/, 'letters, digits, _ . - only'),
  /**
   * As sent. Spec §6.2 says an ISO 8601 UTC timestamp, but nothing here depends on it, and a
   * signed event refused for its time would be lost: any non-empty string is kept.
   */
  time: z.string().min(1),
  institution: KeyCodeValue.optional(),
  event: KeyCodeValue.optional(),
  meta: EventMeta.optional(),
});
export type CanonicalEvent = z.infer<typeof CanonicalEvent>;
