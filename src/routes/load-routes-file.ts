import { ruleOfIssue } from '../rule-of-issue';
import { readFileText, yamlTreeOf } from '../yaml-file';
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
  return parseRoutesFile(readFileText(path, routesFileError), env);
}

/** The same from the file's text. */
export function parseRoutesFile(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): RoutesFile {
  const raw = yamlTreeOf(text, routesFileError);
  const substituted = substituteEnv(raw, env);
  const result = RoutesFile.safeParse(substituted);
  if (!result.success) {
    throw new RoutesFileError(
      result.error.issues.map((issue) => `${routeFieldLabel(raw, issue.path)}: ${ruleOf(issue)}`),
    );
  }
  return result.data;
}

const routesFileError = (problems: string[]): Error => new RoutesFileError(problems);

/** The rule broken (rule-of-issue.ts), naming the destinations where `to` has an unknown one. */
function ruleOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys' && issue.path.at(-1) === 'to') {
    return `unknown destination ${issue.keys.join(', ')} (one of ${DESTINATION_KINDS.join(', ')})`;
  }
  return ruleOfIssue(issue);
}
