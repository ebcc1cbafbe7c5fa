import { checkLineShapes } from '../../helpers/log-reference/check-line-shapes';
import { readLogReference } from '../../helpers/log-reference/log-reference';
import type { LogReference } from '../../helpers/log-reference/log-reference';
import { shapeOf } from '../../helpers/log-reference/line-shape';
import type { LineShape } from '../../helpers/log-reference/line-shape';
import { sourceMessages } from '../../helpers/log-reference/source-messages';
import type { SourceMessage } from '../../helpers/log-reference/source-messages';

const shape = (line: Record<string, unknown>): LineShape => {
  const made = shapeOf({
    level: 30,
    time: '2026-11-28T00:00:00.000Z',
    pid: 1,
    name: 'web',
    ...line,
  });
  if (made === undefined) throw new Error('below info');
  return made;
};

describe('docs/logs.md, the log reference', () => {
  let reference: LogReference;
  let found: SourceMessage[];
  beforeAll(() => {
    reference = readLogReference();
    // One reading of the source (a TypeScript program over it) for the tests that need it.
    found = sourceMessages();
  });

  it('names every field a line may carry once, with its type', () => {
    const unnamed = reference.lines.flatMap((line) =>
      [...line.fields]
        .filter((field) => !reference.types.has(field))
        .map((field) => `${line.message}: ${field}`),
    );
    expect(unnamed).toEqual([]);
    expect([...reference.common].sort()).toEqual([
      'level',
      'msg',
      'name',
      'pid',
      'span_id',
      'time',
      'trace_id',
    ]);
    expect(reference.types.get('operatorAction')).toBe('string');
    expect(reference.types.get('httpStatus')).toBe('number');
  });

  it('lists every message the source writes at info and above', () => {
    const unresolved = found
      .filter((one) => one.messages.length === 0)
      .map((one) => `${one.where}: ${String(one.unresolved)}`);
    expect(unresolved).toEqual([]);
    const missing = found.flatMap((one) =>
      one.messages
        .filter(
          (message) =>
            !reference.lines.some(
              (line) =>
                line.message.replace(/<[^>]+>/g, '<>') === message || line.matches.test(message),
            ),
        )
        .map((message) => `${one.where}: "${message}"`),
    );
    expect(missing).toEqual([]);
    // More than a hundred call sites: the reading of the source is whole.
    expect(found.length).toBeGreaterThan(100);
  });

  it('lists no message the source no longer writes', () => {
    const written = found.flatMap((one) => one.messages);
    const stale = reference.lines
      .filter(
        (line) =>
          !written.some(
            (message) =>
              line.message.replace(/<[^>]+>/g, '<>') === message || line.matches.test(message),
          ),
      )
      .map((line) => line.message);
    expect(stale).toEqual([]);
  });

  it('finds an unnamed field, a field of another type, a field not given for its message, an unknown message', () => {
    const problems = checkLineShapes(
      [
        shape({ msg: 'delivery', requestId: 'r1', httpStatus: 200, outcome: 'accepted' }),
        shape({ msg: 'delivery', requestId: 'r2', httpStatus: '200', colour: 'red' }),
        shape({ msg: 'redis connected', key: 'REDIS_URL', target: 'h:1', route: 'x' }),
        shape({ msg: 'something new' }),
      ],
      reference,
    );
    expect(problems).toEqual(
      [
        'web "delivery" (info): field colour is not named',
        'web "delivery" (info): field colour is not given for this message',
        'web "delivery" (info): field httpStatus is string, the reference says number',
        'web "redis connected" (info): field route is not given for this message',
        'web "something new" (info): the message is not in docs/logs.md\'s reference',
      ].sort(),
    );
  });

  it('holds a level the reference does not give a message', () => {
    expect(checkLineShapes([shape({ msg: 'listener ready', level: 50 })], reference)).toEqual([
      'web "listener ready" (error): level error is not one of info',
    ]);
  });

  it('takes a null for any field, and a line below info not at all', () => {
    expect(
      checkLineShapes([shape({ msg: 'listener ready', spool: null, port: 1 })], reference),
    ).toEqual([]);
    expect(shapeOf({ level: 20, msg: 'anything', whatever: 1 })).toBeUndefined();
  });
});
