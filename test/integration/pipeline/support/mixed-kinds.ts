import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every kind but job_end (which would download from the platform), as the platform sends them. */
const KINDS = [
  { action: 'loan', fixture: 'loan-created.json' },
  { action: 'request', fixture: 'request-created.json' },
  { action: 'bib', fixture: 'bib-updated.json' },
  { action: 'item', fixture: 'item-updated.json' },
  { action: 'user', fixture: 'user-updated.json' },
  { action: 'notification', fixture: 'notification.json' },
] as const;

export interface MixedKinds {
  /** The body of the n-th delivery: the kinds in turn, each with the given event id. */
  bodyOf: (id: string, n: number) => string;
  /** The canonical action of each event made so far, by event id. */
  readonly actionOf: ReadonlyMap<string, string>;
}

/** Bodies of six kinds in turn (test/fixtures/events), remembering which id got which kind. */
export function mixedKinds(): MixedKinds {
  const templates = KINDS.map((kind) => ({
    action: kind.action,
    fields: JSON.parse(
      readFileSync(join(__dirname, '../../../fixtures/events', kind.fixture), 'utf8'),
    ) as Record<string, unknown>,
  }));
  const actionOf = new Map<string, string>();
  return {
    actionOf,
    bodyOf: (id, n) => {
      const template = templates[n % templates.length];
      if (template === undefined) throw new Error('no kind');
      actionOf.set(id, template.action);
      return JSON.stringify({ ...template.fields, id });
    },
  };
}
