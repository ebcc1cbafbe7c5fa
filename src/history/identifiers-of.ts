import type { CanonicalEvent } from '../events/canonical-event';
import { personalDataOf } from '../events/personal-fields';

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

type Bucket = 'barcodes' | 'mmsIds' | 'loanIds' | 'requestIds' | 'jobInstanceIds';

/** Keys whose value is an identifier of that bucket, at any depth of the event. */
const KEYS: ReadonlyMap<string, Bucket> = new Map([
  ['barcode', 'barcodes'],
  ['item_barcode', 'barcodes'],
  ['mms_id', 'mmsIds'],
  ['loan_id', 'loanIds'],
  ['request_id', 'requestIds'],
  ['job_instance_id', 'jobInstanceIds'],
]);

/** A string, or a code object's string value (`request_id: { value: "…" }` in a loan). */
function stringOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return stringOf((value as Record<string, unknown>).value);
  }
  return undefined;
}

/**
 * Reads the identifiers from the event as withoutPersonalData would leave it — its personal
 * fields skipped, a value embedding a personal one left out — so a user's library card
 * (`user_identifier`, a barcode) is never taken for an item barcode; `job_instance.id` is the job
 * instance. Walked in place: no copy of the event, no string masked (this runs for every event).
 */
export function identifiersOf(event: CanonicalEvent): EventIdentifiers {
  const found: Record<Bucket, Set<string>> = {
    barcodes: new Set(),
    mmsIds: new Set(),
    loanIds: new Set(),
    requestIds: new Set(),
    jobInstanceIds: new Set(),
  };
  const personal = personalDataOf(event);
  const add = (bucket: Bucket, text: string | undefined): void => {
    if (text !== undefined && !personal.embedsPersonalValue(text)) found[bucket].add(text);
  };
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (personal.isPersonalField(value, key)) continue;
        const bucket = KEYS.get(key);
        const text = bucket === undefined ? undefined : stringOf(child);
        if (bucket !== undefined && text !== undefined) add(bucket, text);
        else walk(child);
      }
    }
  };
  walk(event);
  const root = event as Record<string, unknown>;
  const instance = root.job_instance;
  if (
    typeof instance === 'object' &&
    instance !== null &&
    !personal.isPersonalField(root, 'job_instance')
  ) {
    const { id } = instance as { id?: unknown };
    if (!personal.isPersonalField(instance, 'id')) add('jobInstanceIds', stringOf(id));
  }
  return {
    barcodes: [...found.barcodes],
    mmsIds: [...found.mmsIds],
    loanIds: [...found.loanIds],
    requestIds: [...found.requestIds],
    jobInstanceIds: [...found.jobInstanceIds],
    personIds: personal.ids,
  };
}
