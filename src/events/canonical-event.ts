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

/**
 * CanonicalEvent without its bounds (the key bounds, the action's length): zod runs a refinement
 * with an allocation and a change of shape of its state each time, which under load cost the
 * listener 1.5–2.5 % of a delivery's CPU (docs/benchmarks-journal.md, 2026-11-26). The bounds are
 * checked by `withinBounds` in one plain pass instead; the schema itself stays the definition.
 */
const UnboundedEvent = CanonicalEvent.extend({
  id: z.string().min(1),
  action: z
    .string()
    .min(1)
    .regex(/^[a-z0-9_.-]+$/, 'letters, digits, _ . - only'),
  institution: CodeValue.optional(),
  event: CodeValue.optional(),
});

/** Whether the bounds CanonicalEvent adds to UnboundedEvent hold for an event that passed it. */
function withinBounds(event: CanonicalEvent): boolean {
  const institution = event.institution?.value;
  const code = event.event?.value;
  return (
    event.action.length <= ACTION_MAX_LENGTH &&
    eventKeyProblem(event.id) === undefined &&
    (institution === undefined || eventKeyProblem(institution) === undefined) &&
    (code === undefined || eventKeyProblem(code) === undefined)
  );
}

/**
 * `CanonicalEvent.safeParse(value)`, the same answer for every value, at less cost for the usual
 * event: the schema without bounds and then the bounds in one pass; any fault (rare: a refused
 * delivery) is named by the whole schema, so the first issue is the one it has always been.
 */
export function safeParseCanonicalEvent(value: unknown): z.ZodSafeParseResult<CanonicalEvent> {
  const quick = UnboundedEvent.safeParse(value);
  if (quick.success && withinBounds(quick.data)) return quick;
  return CanonicalEvent.safeParse(value);
}
