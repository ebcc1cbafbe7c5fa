import { ruleOfIssue } from '../rule-of-issue';
import { readFileText, yamlTreeOf } from '../yaml-file';
import type { z } from 'zod';
import { DESTINATION_ADAPTERS } from './destinations';
import type { DestinationAdapterList } from './destinations/destination-adapter';
import { routesFileSchema } from './routes-file';
import type { RoutesFile, RoutesFileOf } from './routes-file';
import { RoutesFileError } from './routes-file-error';
import { routeFieldLabel } from './route-field-label';
import { substituteEnv } from './substitute-env';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads ROUTES_FILE once, at start-up: YAML (JSON is YAML too), then `${VAR}` substitution, then
 * the schema. Any problem throws a RoutesFileError naming the route and the field, so the worker
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
  return parseRoutesFile(readFileText(path, routesFileError), env, adapters);
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
  const raw = yamlTreeOf(text, routesFileError);
  const substituted = substituteEnv(raw, env);
  const result = routesFileSchema(adapters).safeParse(substituted);
  if (!result.success) {
    const kinds = adapters.map((adapter) => adapter.kind);
    throw new RoutesFileError(
      result.error.issues.map(
        (issue) => `${routeFieldLabel(raw, issue.path)}: ${ruleOf(issue, kinds)}`,
      ),
    );
  }
  return result.data;
}

const routesFileError = (problems: string[]): Error => new RoutesFileError(problems);

/** The rule broken (rule-of-issue.ts), naming the destinations where `to` has an unknown one. */
function ruleOf(issue: z.core.$ZodIssue, kinds: readonly string[]): string {
  if (issue.code === 'unrecognized_keys' && issue.path.at(-1) === 'to') {
    return `unknown destination ${issue.keys.join(', ')} (one of ${kinds.join(', ')})`;
  }
  return ruleOfIssue(issue);
}
