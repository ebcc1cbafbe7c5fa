import { eventKinds } from '../../../src/events/kinds/event-kinds';
import { PERSON_VALUE_KEYS } from '../../../src/events/kinds/person-keys';

/** Keys named as a person's that are a record's here: a library's name, a record's description. */
const RECORD_NOT_PERSON = ['notification: organization_unit.name'];

describe('the kinds’ allow lists', () => {
  it.each(eventKinds.map((kind) => [kind.name, kind] as const))(
    '%s names no personal path and no key that holds a person',
    (_name, kind) => {
      const overlapping = kind.safe.filter((path) => {
        const names = path.split('.');
        if (names.includes('**')) return true;
        return kind.personal.some(
          (personal) =>
            personal === path ||
            personal.startsWith(`${path}.`) ||
            path.startsWith(`${personal}.`) ||
            (personal.startsWith('**.') && names.includes(personal.slice(3))),
        );
      });
      expect(overlapping).toEqual([]);
    },
  );

  it('names no key that is a person’s own in a patron kind (an id, a name, an address, a note)', () => {
    const found = eventKinds
      .filter((kind) => kind.patron)
      .flatMap((kind) =>
        kind.safe
          .filter(
            (path) =>
              PERSON_VALUE_KEYS.has(path.split('.').at(-1) ?? '') &&
              !/(?:^|\.)description$/.test(path),
          )
          .map((path) => `${kind.name}: ${path}`),
      );
    expect(found.filter((path) => !RECORD_NOT_PERSON.includes(path))).toEqual([]);
  });
});
