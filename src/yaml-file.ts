import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';

/** Turns a list of problems into the caller's own error (RoutesFileError, InstitutionsFileError). */
export type FileProblems = (problems: string[]) => Error;

/** A start-up file's text; an unreadable file is one problem naming the path and the code. */
export function readFileText(path: string, fail: FileProblems): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw fail([`cannot read ${path} (${code})`]);
  }
}

/** YAML (JSON is YAML too) → a plain tree; each syntax error is a problem of its own. */
export function yamlTreeOf(text: string, fail: FileProblems): unknown {
  const document = parseDocument(text);
  if (document.errors.length > 0) {
    // The first line of yaml's message only: the rest quotes the source, which may hold a secret.
    throw fail(
      document.errors.map((error) => `YAML: ${error.message.split('\n')[0] ?? error.code}`),
    );
  }
  return document.toJS();
}
