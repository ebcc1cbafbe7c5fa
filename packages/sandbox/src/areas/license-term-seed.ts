/** License term definitions (spec §4.7) that licenses (§4.12) name in their `term` list. */
export interface TermSeed {
  readonly code: string;
  readonly name: string;
  readonly type: TermType;
}

export const TERM_TYPES = ['YES_NO', 'PERMITTED_PROHIBITED', 'TEXT', 'NUMBER'] as const;
export type TermType = (typeof TERM_TYPES)[number];

/** The values a term of each type may take in a license (60195); TEXT and NUMBER are checked by shape. */
export const TERM_VALUES: Readonly<Record<TermType, (value: string) => boolean>> = {
  YES_NO: (value) => ['YES', 'NO'].includes(value),
  PERMITTED_PROHIBITED: (value) => ['PERMITTED', 'PROHIBITED', 'SILENT'].includes(value),
  TEXT: () => true,
  NUMBER: (value) => /^\d+$/.test(value),
};

export const LICENSE_TERMS: readonly TermSeed[] = [
  { code: 'ILLPRINT', name: 'Interlibrary loan print or fax', type: 'PERMITTED_PROHIBITED' },
  { code: 'ILLELEC', name: 'Interlibrary loan electronic', type: 'PERMITTED_PROHIBITED' },
  { code: 'COURSEPACK', name: 'Course pack print', type: 'PERMITTED_PROHIBITED' },
  { code: 'WALKIN', name: 'Walk-in user', type: 'YES_NO' },
  { code: 'CONCURUSERS', name: 'Concurrent users', type: 'NUMBER' },
  { code: 'ARCHIVE', name: 'Perpetual access note', type: 'TEXT' },
];

export function findTerm(termCode: string): TermSeed | undefined {
  return LICENSE_TERMS.find((term) => term.code === termCode);
}
