import { ruleOfIssue } from '../startup/rule-of-issue';
import { StartupFileError } from '../startup/startup-file-error';
import { substituteEnv } from '../startup/substitute-env';
import { readFileText, yamlTreeOf } from '../startup/yaml-file';
import type { z } from 'zod';
import { DESTINATION_ADAPTERS } from './destinations';
import type { DestinationAdapterList } from './destinations/destination-adapter';
import { routesFileSchema } from './routes-file';
import type { RoutesFile, RoutesFileOf } from './routes-file';
import { routeFieldLabel } from './route-field-label';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads ROUTES_FILE once, at start-up: YAML (JSON is YAML too), then `${VAR}` substitution, then
 * the schema. Any problem throws a StartupFileError naming the route and the field, so the worker
 * refuses to start instead of dropping events later. `adapters`: the destinations `to:` may name
 * (DESTINATION_ADAPTERS unless given).
 */
export function loadRoutesFile(path: string, env: Env): RoutesFile;
export function loadRoutesFile<Adapters extends DestinationAdapterList>(
  path: string,
  env: Env,
  adapters: Adapters,
): RoutesFileOf<Adapters>;
export function loadRoutesFile(
  path: string,
  env: Env,
  adapters: DestinationAdapterList = DESTINATION_ADAPTERS,
): RoutesFileOf<DestinationAdapterList> {
  return parseRoutesFile(readFileText(path, ROUTES_FILE), env, adapters);
}

/** The same from the file's text. */
export function parseRoutesFile(text: string, env: Env): RoutesFile;
export function parseRoutesFile<Adapters extends DestinationAdapterList>(
  text: string,
  env: Env,
  adapters: Adapters,
): RoutesFileOf<Adapters>;
export function parseRoutesFile(
  text: string,
  env: Env,
  adapters: DestinationAdapterList = DESTINATION_ADAPTERS,
): RoutesFileOf<DestinationAdapterList> {
  const raw = yamlTreeOf(text, ROUTES_FILE);
  const labelOf = (path: readonly PropertyKey[]): string => routeFieldLabel(raw, path);
  const substituted = substituteEnv(raw, { env, file: ROUTES_FILE, labelOf });
  const result = routesFileSchema(adapters).safeParse(substituted);
  if (!result.success) {
    const kinds = adapters.map((adapter) => adapter.kind);
    throw new StartupFileError(
      ROUTES_FILE,
      result.error.issues.map(
        (issue) => `${routeFieldLabel(raw, issue.path)}: ${ruleOf(issue, kinds)}`,
      ),
    );
  }
  return result.data;
}

/** How the routes file's problems start: `invalid routes file: …`. */
export const ROUTES_FILE = 'routes file';

/** The rule broken (rule-of-issue.ts), naming the destinations where `to` has an unknown one. */
function ruleOf(issue: z.core.$ZodIssue, kinds: readonly string[]): string {
  if (issue.code === 'unrecognized_keys' && issue.path.at(-1) === 'to') {
    return `unknown destination ${issue.keys.join(', ')} (one of ${kinds.join(', ')})`;
  }
  return ruleOfIssue(issue);
}
