import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { StartupFileError } from './startup-file-error';

/**
 * A start-up file's text; an unreadable file is one problem naming the path and the code.
 * `file` names the file in the error (`routes file`).
 */
export function readFileText(path: string, file: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new StartupFileError(file, [`cannot read ${path} (${code})`]);
  }
}

/** YAML (JSON is YAML too) → a plain tree; each syntax error is a problem of its own. */
export function yamlTreeOf(text: string, file: string): unknown {
  const document = parseDocument(text);
  if (document.errors.length > 0) {
    // The first line of yaml's message only: the rest quotes the source, which may hold a secret.
    throw new StartupFileError(
      file,
      document.errors.map((error) => `YAML: ${error.message.split('\n')[0] ?? error.code}`),
    );
  }
  return document.toJS();
}
