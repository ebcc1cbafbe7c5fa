import type { LogReference } from './log-reference';
import type { LineShape } from './line-shape';

/**
 * What the reference does not say of these lines: a message it does not list, a level it does
 * not give that message, a field it does not name (for that message or on every line), a field
 * whose type is not the one it gives. One problem a message and field, however many lines.
 */
export function checkLineShapes(shapes: Iterable<LineShape>, reference: LogReference): string[] {
  const problems = new Set<string>();
  for (const shape of shapes) {
    const where = `${shape.process} "${shape.msg}" (${shape.level})`;
    const row = reference.lines.find((one) => one.matches.test(shape.msg));
    if (row === undefined) {
      problems.add(`${where}: the message is not in docs/logs.md's reference`);
      continue;
    }
    if (!row.levels.includes(shape.level))
      problems.add(`${where}: level ${shape.level} is not one of ${row.levels.join('/')}`);
    for (const [field, type] of Object.entries(shape.fields)) {
      const documented = reference.types.get(field);
      if (documented === undefined) problems.add(`${where}: field ${field} is not named`);
      else if (type !== 'null' && type !== documented)
        problems.add(`${where}: field ${field} is ${type}, the reference says ${documented}`);
      if (!reference.common.has(field) && !row.fields.has(field))
        problems.add(`${where}: field ${field} is not given for this message`);
    }
  }
  return [...problems].sort();
}
