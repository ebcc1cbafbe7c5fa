/**
 * A billion laughs: nine levels of nine aliases each, 9^9 values once expanded. Valid YAML that
 * yaml's alias cap (src/startup/yaml-tree-with-lines.ts) must refuse before it expands.
 */
export function aliasBomb(): string {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (let level = 1; level < 9; level += 1) {
    const previous = String.fromCharCode(96 + level);
    const next = String.fromCharCode(97 + level);
    lines.push(`${next}: &${next} [${Array(9).fill(`*${previous}`).join(',')}]`);
  }
  return `${lines.join('\n')}\n`;
}
