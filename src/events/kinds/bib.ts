import { z } from 'zod';
import type { EventKind, SampleSeed } from './event-kind';
import { fieldRules } from './field-rules';
import { SAMPLE_BASE, sampleHead } from './sample-parts';

/** The bib kind's subject, `bib`: a bibliographic record, its MARCXML as strings in `anies`. */
export const BibSubject = z.looseObject({
  mms_id: z.string().optional(),
  title: z.string().optional(),
  network_number: z.array(z.string()).optional(),
  anies: z.array(z.string()).optional(),
});
export type BibSubject = z.infer<typeof BibSubject>;

function bibSample({ id, time, n }: SampleSeed): Record<string, unknown> {
  const mmsId = `991234${n}`;
  const marc =
    '<?xml version="1.0" encoding="UTF-16"?><record><leader>01234cam a2200289 i 4500</leader>' +
    `<controlfield tag="001">${mmsId}</controlfield>` +
    '<datafield ind1="1" ind2="0" tag="245"><subfield code="a">Essays on memory</subfield></datafield></record>';
  return {
    ...sampleHead(id, time, 'BIB', 'BIB_UPDATED', 'BIB record updated'),
    bib: {
      mms_id: mmsId,
      record_format: 'marc21',
      title: 'Essays on memory',
      author: 'Lindqvist, Erik',
      isbn: '9780000001234',
      network_number: ['(OCoLC)123456789'],
      holdings: { link: `${SAMPLE_BASE}/bibs/${mmsId}/holdings` },
      last_modified_date: `${time.slice(0, 10)}Z`,
      suppress_from_publishing: 'false',
      cataloging_level: { value: '00', desc: 'Default Level' },
      anies: [marc],
      link: `${SAMPLE_BASE}/bibs/${mmsId}`,
    },
  };
}

export const bib: EventKind = {
  name: 'bib',
  subject: 'bib',
  schema: BibSubject,
  // A bibliographic record names no patron (`created_by` and the like are staff or systems).
  patron: false,
  personal: [],
  // The record itself; not `created_by` or `last_modified_by` (staff are people too).
  safe: [
    'mms_id',
    'record_format',
    'linked_record_id',
    'title',
    'author',
    'issn',
    'isbn',
    'complete_edition',
    'network_number',
    'place_of_publication',
    'date_of_publication',
    'publisher_const',
    'holdings',
    'created_date',
    'last_modified_date',
    'suppress_from_publishing',
    'suppress_from_external_search',
    'sync_with_oclc',
    'originating_system',
    'originating_system_id',
    'cataloging_level',
    'brief_level',
    'anies',
    'link',
  ],
  identifiers: { thin: ['mms_id'], history: { mmsIds: ['mms_id'] } },
  samples: { bib: bibSample },
  rules: fieldRules({
    // `linked_record_id` is `{type, value}` with a bare `type` ("CZ"): an object, not a code.
    // `suppress_from_publishing` is the string "false" in the platform's JSON: kept a string.
    codes: ['cataloging_level', 'brief_level'],
    lists: ['network_number', 'anies'],
    objects: { linked_record_id: fieldRules({}), holdings: fieldRules({}) },
  }),
};
