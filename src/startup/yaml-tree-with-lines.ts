import { LineCounter, isNode, parseDocument } from 'yaml';
import { StartupFileError } from './startup-file-error';

/** yaml's own default: an alias bomb (billion laughs) fails before it expands. */
const MAX_ALIAS_COUNT = 100;

/** A start-up file's tree, and where in the text a place of it is. */
export interface YamlTreeWithLines {
  readonly tree: unknown;
  /**
   * The 1-based line of the value at `path` (a zod issue's path); of its nearest ancestor the
   * file has when the value is missing (a required field names its entry's line).
   */
  lineOf(path: readonly PropertyKey[]): number;
}

/**
 * YAML (JSON is YAML too) → a plain tree, each place of which can be found by line; each syntax
 * error is a problem of its own (with its line), and so is an alias bomb (more than 100 alias
 * expansions, yaml's `maxAliasCount`): both name the file.
 */
export function yamlTreeWithLines(text: string, file: string): YamlTreeWithLines {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  if (document.errors.length > 0) {
    // The first line of yaml's message only: the rest quotes the source, which may hold a secret.
    throw new StartupFileError(
      file,
      // yaml's first line ends "at line L, column C:" where it knows the place.
      document.errors.map(
        (error) => `YAML: ${error.message.split('\n')[0]?.replace(/:$/, '') ?? error.code}`,
      ),
    );
  }
  let tree: unknown;
  try {
    tree = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : undefined;
    throw new StartupFileError(file, [`YAML: ${message ?? 'cannot be read'}`]);
  }
  const lineOf = (path: readonly PropertyKey[]): number => {
    for (let depth = path.length; depth >= 0; depth -= 1) {
      const node: unknown = document.getIn(path.slice(0, depth), true);
      if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
    }
    return 1;
  };
  return { tree, lineOf };
}
