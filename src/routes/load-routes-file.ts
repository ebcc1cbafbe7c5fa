import { ruleOfIssue } from '../startup/rule-of-issue';
import { StartupFileError } from '../startup/startup-file-error';
import { substituteEnv } from '../startup/substitute-env';
import { readFileText, yamlTreeOf } from '../startup/yaml-file';
import type { z } from 'zod';
import { DESTINATION_KINDS, RoutesFile } from './routes-file';
import { routeFieldLabel } from './route-field-label';

/**
 * Reads ROUTES_FILE once, at start-up: YAML (JSON is YAML too), then `${VAR}` substitution, then
 * the schema. Any problem throws a StartupFileError naming the route and the field, so the worker
 * refuses to start instead of dropping events later.
 */
export function loadRoutesFile(
  path: string,
  env: Readonly<Record<string, string | undefined>>,
): RoutesFile {
  return parseRoutesFile(readFileText(path, ROUTES_FILE), env);
}

/** The same from the file's text. */
export function parseRoutesFile(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): RoutesFile {
  const raw = yamlTreeOf(text, ROUTES_FILE);
  const labelOf = (path: readonly PropertyKey[]): string => routeFieldLabel(raw, path);
  const substituted = substituteEnv(raw, { env, file: ROUTES_FILE, labelOf });
  const result = RoutesFile.safeParse(substituted);
  if (!result.success) {
    throw new StartupFileError(
      ROUTES_FILE,
      result.error.issues.map((issue) => `${routeFieldLabel(raw, issue.path)}: ${ruleOf(issue)}`),
    );
  }
  return result.data;
}

/** How the routes file's problems start: `invalid routes file: …`. */
export const ROUTES_FILE = 'routes file';

/** The rule broken (rule-of-issue.ts), naming the destinations where `to` has an unknown one. */
function ruleOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys' && issue.path.at(-1) === 'to') {
    return `unknown destination ${issue.keys.join(', ')} (one of ${DESTINATION_KINDS.join(', ')})`;
  }
  return ruleOfIssue(issue);
}
