import { z } from 'zod';

/** A platform code field: `{"value": "IMPORT", "desc": "Import"}` (XML: `<category desc="Import">IMPORT</category>`). */
export const CodeValue = z.object({ value: z.string(), desc: z.string().optional() });
export type CodeValue = z.infer<typeof CodeValue>;

/** Transport facts of one delivery; kept apart so the event itself is the same for JSON and XML. */
export const EventMeta = z.object({
  format: z.enum(['json', 'xml']),
  receivedAt: z.iso.datetime(),
  requestId: z.string(),
});
export type EventMeta = z.infer<typeof EventMeta>;

/**
 * The one event shape both body formats normalize into, and the BullMQ job's data (spec §6.2).
 * Subject objects (`job_instance`, `item_loan`, `bib`, …) and any other key the platform sends stay
 * as they are, under their own key, in their JSON form.
 */
export const CanonicalEvent = z.looseObject({
  id: z.string().min(1),
  /** Lower-cased: the platform sends both `JOB_END` and `job_end`. */
  action: z
    .string()
    .min(1)
    .regex(/^[a-z0-9_.-]+$/, 'letters, digits, _ . - only'),
  /** ISO 8601 as sent (spec §6.2: a UTC timestamp). */
  time: z.iso.datetime({ offset: true, local: false }),
  institution: CodeValue.optional(),
  event: CodeValue.optional(),
  meta: EventMeta.optional(),
});
export type CanonicalEvent = z.infer<typeof CanonicalEvent>;
