import { createHash } from 'node:crypto';
import type { HistoryRecord } from './history-record';

/**
 * The longest identifier kept as it is, in UTF-8 bytes. A btree index entry holds at most 2704
 * bytes (a third of an 8 KB page); the widest of the history's keys hold three identifiers
 * (events: institution, event id and action beside a timestamp), so 3 × 512 bytes with their
 * headers stays near 1.6 KB, well under the limit, and GIN entries (the identifier arrays, same
 * limit) hold one each. Every real identifier is far shorter: ids are digits today.
 */
const MAX_IDENTIFIER_BYTES = 512;

/** What an identifier past the bound is kept as: this marker and the SHA-256 of its bytes. */
const HASHED_IDENTIFIER_MARKER = 'sha256:';

/** What stands for a NUL or a lone surrogate: neither text nor jsonb can hold them. */
const REPLACEMENT = '\uFFFD';

const UNSTORABLE = /[\0\ud800-\udfff]/;
const UNSTORABLE_ALL = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The JSON text of values PostgreSQL refuses: `\u0000` (no text or jsonb holds it) and a lone
 * surrogate's escape (JSON.stringify writes a well-formed pair as it is, a lone one escaped). A
 * literal backslash before "u0000" in a value matches too: then the values are cleaned for nothing.
 */
const UNSTORABLE_IN_JSON = /\\u0000|\\ud[89a-f][0-9a-f]{2}/i;

/** The text with NUL and lone surrogates replaced by U+FFFD; the same text when it has none. */
export function storableText(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, REPLACEMENT) : text;
}

/**
 * An identifier as a column and an index can hold it: cleaned (storableText), and past
 * MAX_IDENTIFIER_BYTES kept as `sha256:<hex>` of its cleaned UTF-8 bytes — the same identifier
 * always gives the same key, so an event and its attempts still meet. Applying it twice changes
 * nothing.
 */
export function storableIdentifier(identifier: string): string {
  const clean = storableText(identifier);
  // A UTF-8 character takes at most 3 bytes per UTF-16 unit: short strings need no count.
  if (clean.length * 3 <= MAX_IDENTIFIER_BYTES) return clean;
  if (Buffer.byteLength(clean) <= MAX_IDENTIFIER_BYTES) return clean;
  return `${HASHED_IDENTIFIER_MARKER}${createHash('sha256').update(clean).digest('hex')}`;
}

/**
 * A record's JSON text for jsonb, every string and key cleaned (storableText) when the plain
 * text holds anything PostgreSQL refuses; the plain text otherwise (the usual case, one test).
 */
export function storableJsonText(value: unknown): string {
  const text = JSON.stringify(value);
  return UNSTORABLE_IN_JSON.test(text) ? JSON.stringify(storableJson(value)) : text;
}

function storableJson(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableJson);
  if (typeof value !== 'object' || value === null) return value;
  const clean: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) clean[storableText(key)] = storableJson(inner);
  return clean;
}

/** Whether storableIdentifier would leave the identifier as it is. */
function isStorableIdentifier(identifier: string | undefined): boolean {
  if (identifier === undefined) return true;
  if (UNSTORABLE.test(identifier)) return false;
  return (
    identifier.length * 3 <= MAX_IDENTIFIER_BYTES ||
    Buffer.byteLength(identifier) <= MAX_IDENTIFIER_BYTES
  );
}

/** The values of the record an index keeps (what storableRecord changes). */
function keysOf(record: HistoryRecord): (string | undefined)[] {
  switch (record.type) {
    case 'event':
      return [
        record.institution,
        record.eventId,
        record.action,
        record.eventCode,
        ...record.userKeys,
        ...record.barcodes,
        ...record.mmsIds,
        ...record.loanIds,
        ...record.requestIds,
        ...record.jobInstanceIds,
      ];
    case 'attempt':
      return [record.institution, record.eventId, record.route, record.jobId];
    case 'outcome':
      return [record.institution, record.eventId, record.subjectId];
    case 'step':
      return [record.institution, record.eventId, record.jobId];
    case 'audit':
      return [];
  }
}

function identifiers(values: readonly string[]): string[] {
  return values.map(storableIdentifier);
}

/**
 * The record with every value an index keeps made storable (storableIdentifier); NUL and lone
 * surrogates elsewhere are cleaned in its JSON text (storableJsonText) as it is written.
 */
export function storableRecord(record: HistoryRecord): HistoryRecord {
  // The usual case: every key already storable, the record itself (no copy to serialize).
  if (keysOf(record).every(isStorableIdentifier)) return record;
  switch (record.type) {
    case 'event':
      return {
        ...record,
        institution: storableIdentifier(record.institution),
        eventId: storableIdentifier(record.eventId),
        action: storableIdentifier(record.action),
        ...(record.eventCode === undefined
          ? {}
          : { eventCode: storableIdentifier(record.eventCode) }),
        userKeys: identifiers(record.userKeys),
        barcodes: identifiers(record.barcodes),
        mmsIds: identifiers(record.mmsIds),
        loanIds: identifiers(record.loanIds),
        requestIds: identifiers(record.requestIds),
        jobInstanceIds: identifiers(record.jobInstanceIds),
      };
    case 'attempt':
      return {
        ...record,
        institution: storableIdentifier(record.institution),
        eventId: storableIdentifier(record.eventId),
        route: storableIdentifier(record.route),
        ...(record.jobId === undefined ? {} : { jobId: storableIdentifier(record.jobId) }),
      };
    case 'outcome':
      return {
        ...record,
        institution: storableIdentifier(record.institution),
        eventId: storableIdentifier(record.eventId),
        ...(record.subjectId === undefined
          ? {}
          : { subjectId: storableIdentifier(record.subjectId) }),
      };
    case 'step':
      return {
        ...record,
        institution: storableIdentifier(record.institution),
        eventId: storableIdentifier(record.eventId),
        ...(record.jobId === undefined ? {} : { jobId: storableIdentifier(record.jobId) }),
      };
    case 'audit':
      return record;
  }
}
