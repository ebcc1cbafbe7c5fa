import type { EventKind } from '../events/kinds/event-kind';

/**
 * The paths a thin event (`send: { shape: ids }`) keeps of each kind's subject, by the subject's
 * root key: each kind's `identifiers.thin` (events/kinds/*), the fields a receiver needs to
 * fetch the rest through the API (spec §6.2 lists the subject objects). A subject no kind claims
 * keeps its `id` alone.
 */
export function subjectIdentifiersOf(
  kinds: readonly EventKind[],
): ReadonlyMap<string, readonly string[]> {
  return new Map(
    kinds.map((kind) => [
      kind.subject,
      kind.identifiers.thin.map((path) => `${kind.subject}.${path}`),
    ]),
  );
}

/** The envelope of every event (spec §6.2): what `shape: ids` keeps besides the identifiers. */
export const ENVELOPE_PATHS = ['id', 'action', 'event', 'institution', 'time'] as const;
