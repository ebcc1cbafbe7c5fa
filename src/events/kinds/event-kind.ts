import type { z } from 'zod';
import type { FieldRules } from './field-rules';

/** One kind of event the platform sends (spec §6.2: an object for the subject of the event). */
export interface EventKind {
  /** The kind's name, as routes and docs call it. */
  readonly name: string;
  /** The root key of the subject object, as real payloads name it. */
  readonly subject: string;
  /** A lenient schema of the subject: the fields this kind is known by, any other kept. */
  readonly schema: z.ZodType;
  /** Which fields of the subject are codes, numbers, strings, booleans, lists or objects. */
  readonly rules: FieldRules;
  /**
   * Dot paths inside the subject that name or reach a person (a patron's id, name, e-mail, phone,
   * address, PIN, birth date, identifiers, free text about them). A path walks through lists:
   * `contact_info.email.email_address` is every e-mail of the list. The one list masking, hashing
   * and forgetting use (src/events/personal-fields.ts).
   */
  readonly personal: readonly string[];
}
