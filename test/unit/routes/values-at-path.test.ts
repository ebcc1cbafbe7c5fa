import { valuesAtPath } from '../../../src/routes/values-at-path';

const at = (root: unknown, path: string): unknown[] => valuesAtPath(root, path.split('.'));

describe('the values a path reaches', () => {
  it('reaches the one value at the end of a path through objects', () => {
    expect(at({ item_loan: { library: { value: 'MAIN' } } }, 'item_loan.library.value')).toEqual([
      'MAIN',
    ]);
    expect(at({ a: { b: 0 } }, 'a.b')).toEqual([0]);
    expect(at({ a: { b: false } }, 'a.b')).toEqual([false]);
    expect(at({ a: { b: { c: 1 } } }, 'a.b')).toEqual([{ c: 1 }]);
  });

  it('reaches nothing through a missing key, a null, a string or an inherited name', () => {
    expect(at({ a: {} }, 'a.b')).toEqual([]);
    expect(at({ a: null }, 'a.b')).toEqual([]);
    expect(at({ a: { b: null } }, 'a.b')).toEqual([]);
    expect(at({ a: 'text' }, 'a.length')).toEqual([]);
    expect(at({ a: {} }, 'a.constructor')).toEqual([]);
  });

  it('walks every list on the way and flattens the lists at the end', () => {
    const event = {
      notes: [{ type: 'A' }, { type: 'B' }, { other: 1 }, [{ type: 'C' }]],
      tags: [['x', null], 'y'],
    };
    expect(at(event, 'notes.type')).toEqual(['A', 'B', 'C']);
    expect(at(event, 'tags')).toEqual(['x', 'y']);
    expect(at([{ a: 1 }, { a: 2 }], 'a')).toEqual([1, 2]);
    expect(at({ a: [{ b: { c: [1, [2]] } }, { b: { c: 3 } }] }, 'a.b.c')).toEqual([1, 2, 3]);
  });
});
