import { z } from 'zod';
import type { EventKind } from './event-kind';
import { fieldRules } from './field-rules';

/** The bib kind's subject, `bib`: a bibliographic record, its MARCXML as strings in `anies`. */
export const BibSubject = z.looseObject({
  mms_id: z.string().optional(),
  title: z.string().optional(),
  network_number: z.array(z.string()).optional(),
  anies: z.array(z.string()).optional(),
});
export type BibSubject = z.infer<typeof BibSubject>;

export const bib: EventKind = {
  name: 'bib',
  subject: 'bib',
  schema: BibSubject,
  // A bibliographic record names no patron (`created_by` and the like are staff or systems).
  personal: [],
  rules: fieldRules({
    // `linked_record_id` is `{type, value}` with a bare `type` ("CZ"): an object, not a code.
    // `suppress_from_publishing` is the string "false" in the platform's JSON: kept a string.
    codes: ['cataloging_level', 'brief_level'],
    lists: ['network_number', 'anies'],
    objects: { linked_record_id: fieldRules({}), holdings: fieldRules({}) },
  }),
};
