import { ruleOfIssue } from '../rule-of-issue';
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { DESTINATION_KINDS, RoutesFile } from './routes-file';
import { RoutesFileError } from './routes-file-error';
import { routeFieldLabel } from './route-field-label';
import { substituteEnv } from './substitute-env';

/**
 * Reads ROUTES_FILE once, at start-up: YAML (JSON is YAML too), then `${VAR}` substitution, then
 * the schema. Any problem throws a RoutesFileError naming the route and the field, so the worker
 * refuses to start instead of dropping events later.
 */
export function loadRoutesFile(
  path: string,
  env: Readonly<Record<string, string | undefined>>,
): RoutesFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new RoutesFileError([`cannot read ${path} (${code})`]);
  }
  return parseRoutesFile(text, env);
}

/** The same from the file's text. */
export function parseRoutesFile(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): RoutesFile {
  const document = parseDocument(text);
  if (document.errors.length > 0) {
    // The first line of yaml's message only: the rest quotes the source.
    throw new RoutesFileError(
      document.errors.map((error) => `YAML: ${error.message.split('\n')[0] ?? error.code}`),
    );
  }
  const raw: unknown = document.toJS();
  const substituted = substituteEnv(raw, env);
  const result = RoutesFile.safeParse(substituted);
  if (!result.success) {
    throw new RoutesFileError(
      result.error.issues.map((issue) => `${routeFieldLabel(raw, issue.path)}: ${ruleOf(issue)}`),
    );
  }
  return result.data;
}

/** The rule broken (rule-of-issue.ts), naming the destinations where `to` has an unknown one. */
function ruleOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys' && issue.path.at(-1) === 'to') {
    return `unknown destination ${issue.keys.join(', ')} (one of ${DESTINATION_KINDS.join(', ')})`;
  }
  return ruleOfIssue(issue);
}
