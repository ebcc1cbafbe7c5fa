import jsonata from 'jsonata';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { directTransformOf } from '../../../src/routes/direct-transform';
import { RouteSend } from '../../../src/routes/route-send';
import { createSendShaper } from '../../../src/routes/send-shaper';

const DIRECT = [
  '{ "id": id, "action": action, "loan": item_loan.loan_id, "status": item_loan.loan_status }',
  '{ "b": a.b.c, "1": x, "a": y, "0": z, "__proto__": p, "constructor": constructor, "s": a.toString }',
  '{ "deep": `odd key`.inner }',
  '{ "text": "Loan " & item_loan.loan_id & " (" & item_loan.loan_status & ")", "id": id }',
  '{ "text": x & y & a.toString, "fixed": "as written", "empty": "" & nothing }',
  '{}',
];

/** JSON.parse makes an own `__proto__` key, as a body from the wire would have. */
const INPUTS: unknown[] = [
  {
    id: '1764000000000000123',
    action: 'loan',
    item_loan: { loan_id: '2340176', loan_status: 'ACTIVE', title: 'A history of rivers' },
  },
  { id: null, action: null, item_loan: null },
  { id: 'x', item_loan: 'a string on the way', a: 7 },
  { id: 0, action: false, item_loan: { loan_id: 1.5, loan_status: true } },
  { id: { a: { b: 1 } }, item_loan: { loan_id: { x: [1, 2] } }, a: { b: { c: { d: [3] } } } },
  {},
  JSON.parse('{ "__proto__": { "x": 1 }, "p": { "q": 2 }, "x": "one", "y": "a", "z": "zero" }'),
  { constructor: 'own', a: { toString: 'own too', b: { c: null } }, 'odd key': { inner: 'ok' } },
];

/** Inputs with a list where a path goes: JSONata's sequence rules, so the direct form gives up. */
const LISTS: unknown[] = [
  { item_loan: [{ loan_id: 'a' }, { loan_id: 'b' }] },
  { id: ['only one'] },
  { id: [] },
  [{ id: 'an array as input' }],
  // Data shaped like a JSONata function: JSONata does not look inside it.
  { item_loan: { _jsonata_lambda: true, loan_id: 'x', loan_status: 'ACTIVE' } },
  { id: { _jsonata_function: true } },
];

/** Inputs where `&` meets something other than a string: JSONata's `$string` rules. */
const NOT_TEXT: unknown[] = [
  { item_loan: { loan_id: 12, loan_status: 'ACTIVE' } },
  { item_loan: { loan_id: '1', loan_status: null } },
  { item_loan: { loan_id: '1', loan_status: { code: 'A' } } },
  { item_loan: { loan_id: '1', loan_status: true } },
  { item_loan: { loan_id: '1', loan_status: ['A'] } },
];

/** Entries in enumeration order, so a difference in key order shows. */
const entriesOf = (value: unknown): string => JSON.stringify(Object.entries(value as object));

describe('transforms of plain paths, evaluated directly', () => {
  it.each(DIRECT)('makes what JSONata makes of every input: %s', async (expression) => {
    const compiled = jsonata(expression);
    const direct = directTransformOf(compiled.ast());
    expect(direct).toBeDefined();
    for (const input of INPUTS) {
      const made = direct?.(input);
      // Without `&` every input here is direct; with it, those where `&` meets a non-string are not.
      if (!expression.includes('&')) expect(made).toBeDefined();
      if (made === undefined) continue;
      const expected: unknown = await compiled.evaluate(input);
      expect(made).toEqual(expected);
      expect(entriesOf(made)).toBe(entriesOf(expected));
      expect(JSON.stringify(made)).toBe(JSON.stringify(expected));
      expect(Object.getPrototypeOf(made)).toBe(Object.getPrototypeOf(expected));
    }
    expect(direct?.(INPUTS[0])).toBeDefined();
  });

  it('gives up on a list along a path or an object marked as a JSONata function', () => {
    const direct = directTransformOf(jsonata(DIRECT[0] ?? '').ast());
    for (const input of LISTS) expect(direct?.(input)).toBeUndefined();
  });

  it('gives up where & meets something other than a string (JSONata evaluates it)', async () => {
    const compiled = jsonata(DIRECT[3] ?? '');
    const direct = directTransformOf(compiled.ast());
    for (const input of NOT_TEXT) expect(direct?.(input)).toBeUndefined();
    // The same expression is direct where it meets strings only.
    expect(direct?.(INPUTS[0])).toEqual(await compiled.evaluate(INPUTS[0]));
  });

  it('the route sends what JSONata makes, with a list on the way or without', async () => {
    const expression = DIRECT[3] ?? '';
    const shape = createSendShaper(RouteSend.parse({ transform: expression }));
    for (const input of [...INPUTS.slice(0, 4), ...LISTS.slice(0, 3), LISTS[4], ...NOT_TEXT]) {
      const expected = JSON.stringify(await jsonata(expression).evaluate(input));
      expect(await shape(input as CanonicalEvent)).toBe(expected);
    }
  });

  it.each([
    '{ "text": "Loan " & $string(item_loan.loan_id) }',
    '{ "n": item_loan.count + 1 }',
    'item_loan',
    '{ "a": $ }',
    '{ "a": $uppercase(x) }',
    '{ "a": items[0] }',
    '{ "a": x, "a": y }',
    '{ "_jsonata_lambda": x }',
    '{ "a": x }.a',
    '{ "a": x }[0]',
    '{ x: y }',
    '{ "a": x.*.y }',
    '{ "a": x^(y) }',
    '[{ "a": x }]',
  ])('leaves anything else to JSONata: %s', (expression) => {
    expect(directTransformOf(jsonata(expression).ast())).toBeUndefined();
  });
});
