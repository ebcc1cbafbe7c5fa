import { ruleOfIssue } from '../startup/rule-of-issue';
import { StartupFileError, namingPath } from '../startup/startup-file-error';
import { substituteEnv } from '../startup/substitute-env';
import { readFileText, yamlTreeOf } from '../startup/yaml-file';
import type { z } from 'zod';
import { DESTINATION_ADAPTERS } from './destinations';
import type { DestinationAdapterList } from './destinations/destination-adapter';
import { routesFileSchema } from './routes-file';
import type { RoutesFile, RoutesFileOf } from './routes-file';
import { routeFieldLabel } from './route-field-label';
import { createSecretRedactor } from './create-secret-redactor';
import type { RedactSecrets } from './create-secret-redactor';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The routes, and the one function that masks the values `${VAR}` put into them: whatever shows
 * a route's text (a target, an error, a preview) passes it through `redactSecrets`.
 */
export type LoadedRoutesFile<Adapters extends DestinationAdapterList = DestinationAdapterList> =
  RoutesFileOf<Adapters> & { readonly redactSecrets: RedactSecrets };

/**
 * Reads ROUTES_FILE once, at start-up: YAML (JSON is YAML too), then `${VAR}` substitution, then
 * the schema; the values substituted become `redactSecrets`. Any problem throws a StartupFileError naming the file's path, the route and the field, so the worker
 * refuses to start instead of dropping events later. `adapters`: the destinations `to:` may name
 * (DESTINATION_ADAPTERS unless given).
 */
export function loadRoutesFile(
  path: string,
  env: Env,
): RoutesFile & { readonly redactSecrets: RedactSecrets };
export function loadRoutesFile<Adapters extends DestinationAdapterList>(
  path: string,
  env: Env,
  adapters: Adapters,
): LoadedRoutesFile<Adapters>;
export function loadRoutesFile(
  path: string,
  env: Env,
  adapters: DestinationAdapterList = DESTINATION_ADAPTERS,
): LoadedRoutesFile {
  return namingPath(path, () => parseRoutesFile(readFileText(path, ROUTES_FILE), env, adapters));
}

/** The same from the file's text. */
export function parseRoutesFile(
  text: string,
  env: Env,
): RoutesFile & { readonly redactSecrets: RedactSecrets };
export function parseRoutesFile<Adapters extends DestinationAdapterList>(
  text: string,
  env: Env,
  adapters: Adapters,
): LoadedRoutesFile<Adapters>;
export function parseRoutesFile(
  text: string,
  env: Env,
  adapters: DestinationAdapterList = DESTINATION_ADAPTERS,
): LoadedRoutesFile {
  const raw = yamlTreeOf(text, ROUTES_FILE);
  const labelOf = (path: readonly PropertyKey[]): string => routeFieldLabel(raw, path);
  const { tree, substituted } = substituteEnv(raw, { env, file: ROUTES_FILE, labelOf });
  const result = routesFileSchema(adapters).safeParse(tree);
  if (!result.success) {
    const kinds = adapters.map((adapter) => adapter.kind);
    throw new StartupFileError(
      ROUTES_FILE,
      result.error.issues.map(
        (issue) => `${routeFieldLabel(raw, issue.path)}: ${ruleOf(issue, kinds)}`,
      ),
    );
  }
  return { ...result.data, redactSecrets: createSecretRedactor(substituted) };
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
