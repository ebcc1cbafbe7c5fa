import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** What every temporary file of openAtomicFile looks like: `.<target name>.<label>.part`. */
export const TEMPORARY_FILE_PATTERN = /^\..+\.part$/;

/**
 * A name beside `target` that no other writer uses: a random suffix on every call, so two runs of
 * the same job (a lost lock lets an old run go on while a new one starts) never share a file. The
 * optional tag (a job id) only tells a person which job a leftover came from.
 */
export function temporaryFileName(target: string, tag?: string): string {
  const unique = randomBytes(6).toString('hex');
  const label = tag === undefined ? unique : `${tag}.${unique}`;
  return join(dirname(target), `.${basename(target)}.${label}.part`);
}
