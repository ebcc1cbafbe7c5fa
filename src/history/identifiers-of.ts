import type { CanonicalEvent } from '../events/canonical-event';
import { anyKind } from '../events/kinds/any-kind';
import { RECORD_COLUMNS } from '../events/kinds/event-kind';
import type { EventKind, RecordColumn } from '../events/kinds/event-kind';
import { eventKinds } from '../events/kinds/event-kinds';
import { forEachAtPath, isJsonObject } from '../events/kinds/for-each-at-path';
import { personalDataOf } from '../events/personal-fields';
import type { PersonalData } from '../events/personal-fields';

/** The identifiers of one event the history is searched by. */
export interface EventIdentifiers {
  readonly barcodes: string[];
  readonly mmsIds: string[];
  readonly loanIds: string[];
  readonly requestIds: string[];
  readonly jobInstanceIds: string[];
  /** The person's identifiers in clear: hashed before they leave the worker (history-row-of.ts). */
  readonly personIds: readonly string[];
}

type Found = Record<RecordColumn, Set<string>>;

const KEYS: ReadonlyMap<string, RecordColumn> = new Map(Object.entries(anyKind.identifierKeys));

/** A string, or a code object's string value (`request_id: { value: "…" }` in a loan). */
function stringOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (isJsonObject(value)) return stringOf(value.value);
  return undefined;
}

/** Each kind's `identifiers.history` paths in its subject; returns the subjects so read. */
function readKinds(
  root: Record<string, unknown>,
  kinds: readonly EventKind[],
  personal: PersonalData,
  add: (column: RecordColumn, text: string | undefined) => void,
): Set<string> {
  const claimed = new Set<string>();
  const enter = (parent: object, key: string): boolean => !personal.isPersonalField(parent, key);
  for (const kind of kinds) {
    const subject = root[kind.subject];
    if (!isJsonObject(subject)) continue;
    claimed.add(kind.subject);
    for (const column of RECORD_COLUMNS) {
      for (const path of kind.identifiers.history[column] ?? []) {
        const visit = (parent: Record<string, unknown>, key: string): void =>
          add(column, stringOf(parent[key]));
        forEachAtPath(subject, path.split('.'), visit, enter);
      }
    }
  }
  return claimed;
}

/**
 * Reads the identifiers from the event as withoutPersonalData would leave it — its personal
 * fields skipped, a value embedding a personal one left out — so a user's library card
 * (`user_identifier`, a barcode) is never taken for an item barcode. A known kind's subject is
 * read where its file says (`identifiers.history`); what no kind claims, by key at any depth.
 * Walked in place: no copy of the event, no string masked (this runs for every event).
 */
export function identifiersOf(
  event: CanonicalEvent,
  kinds: readonly EventKind[] = eventKinds,
): EventIdentifiers {
  const found: Found = {
    barcodes: new Set(),
    mmsIds: new Set(),
    loanIds: new Set(),
    requestIds: new Set(),
    jobInstanceIds: new Set(),
  };
  const personal = personalDataOf(event, kinds);
  const add = (column: RecordColumn, text: string | undefined): void => {
    if (text !== undefined && !personal.embedsPersonalValue(text)) found[column].add(text);
  };
  const root = event as Record<string, unknown>;
  const claimed = readKinds(root, kinds, personal, add);
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isJsonObject(value)) {
      for (const [key, child] of Object.entries(value)) {
        if (personal.isPersonalField(value, key) || (value === root && claimed.has(key))) continue;
        const column = KEYS.get(key);
        const text = column === undefined ? undefined : stringOf(child);
        if (column !== undefined && text !== undefined) add(column, text);
        else walk(child);
      }
    }
  };
  walk(root);
  return {
    barcodes: [...found.barcodes],
    mmsIds: [...found.mmsIds],
    loanIds: [...found.loanIds],
    requestIds: [...found.requestIds],
    jobInstanceIds: [...found.jobInstanceIds],
    personIds: personal.ids,
  };
}
