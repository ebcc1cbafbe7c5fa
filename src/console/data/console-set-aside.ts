import { z } from 'zod';
import { countSetAside, listSetAside } from '../../history/list-set-aside';
import type { ConsoleHistory } from './console-history';
import { parsed } from './console-input';
import type { ConsoleHistoryOptions } from './create-console-history';

const SetAsideListQuery = z.strictObject({
  before: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

/**
 * The records the history writer set aside (PostgreSQL refused them for their data): an operator
 * sees each one's time, institution, event id, SQLSTATE and reason, a viewer how many there are.
 * Never the record itself: it holds the sealed body and hashed ids (docs/privacy.md).
 */
export function consoleSetAside(
  options: ConsoleHistoryOptions,
): Pick<ConsoleHistory, 'listSetAside'> {
  return {
    listSetAside: async (query, scope) => {
      const asked = parsed(SetAsideListQuery, query, 'query');
      const institution = scope.institution === undefined ? {} : { institution: scope.institution };
      const count = await countSetAside(options.db, institution);
      if (scope.role !== 'operator') return { count, items: [] };
      const page = await listSetAside(options.db, { ...asked, ...institution });
      return {
        count,
        items: page.items.map(({ record: _record, ...entry }) => entry),
        ...(page.next === undefined ? {} : { next: page.next }),
      };
    },
  };
}
