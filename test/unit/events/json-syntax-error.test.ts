import { jsonSyntaxErrorOf } from '../../../src/events/json-syntax-error';

describe('jsonSyntaxErrorOf', () => {
  it.each([
    ['{"email":jane.patron@example.org}', 'unexpected character', 9, 1, 10],
    ['{"id": "1",', 'unexpected end of the body', 11, 1, 12],
    ['{"id":\n  "1" "2"}', 'unexpected character', 13, 2, 7],
    ['{"a":"x\ty"}', 'control character in a string', 7, 1, 8],
    ['{"a":"\\q"}', 'invalid escape in a string', 6, 1, 7],
    ['{"a":"jane', 'unterminated string', 5, 1, 6],
    ['{"a":1} x', 'content after the JSON value', 8, 1, 9],
    ['{"a":-}', 'unexpected character', 5, 1, 6],
    ['{a:1}', 'unexpected character', 1, 1, 2],
    ['', 'unexpected end of the body', 0, 1, 1],
  ])('finds the fault of %j: %s', (text, kind, position, line, column) => {
    expect(jsonSyntaxErrorOf(text)).toEqual({ kind, position, line, column });
  });

  it.each(['{}', ' [1, -2.5e3, "a\\u00e9\\n", true, false, null, {"b": []}] ', '"x"', '0'])(
    'finds none in valid JSON %j, as JSON.parse agrees',
    (text) => {
      expect(() => JSON.parse(text) as unknown).not.toThrow();
      expect(jsonSyntaxErrorOf(text)).toBeUndefined();
    },
  );
});
