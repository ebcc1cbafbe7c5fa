import { isRecord } from '../is-record';
import { ruleOfIssue } from '../startup/rule-of-issue';
import { StartupFileError, namingPath } from '../startup/startup-file-error';
import { substituteEnv } from '../startup/substitute-env';
import { readFileText, yamlTreeOf } from '../startup/yaml-file';
import { InstitutionsFile } from './institutions-file';

type Env = Readonly<Record<string, string | undefined>>;

/** How the institutions file's problems start: `invalid institutions file: …`. */
const INSTITUTIONS_FILE = 'institutions file';

const ONLY_A_VARIABLE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * Reads INSTITUTIONS_FILE once, at start-up, as the routes file is read: YAML (JSON is YAML too),
 * `${VAR}` substitution on the parsed tree (startup/substitute-env.ts), then the schema. Any
 * problem throws a StartupFileError naming the file's path, the institution and the field.
 */
export function loadInstitutionsFile(path: string, env: Env): InstitutionsFile {
  return namingPath(path, () => parseInstitutionsFile(readFileText(path, INSTITUTIONS_FILE), env));
}

/** The same from the file's text. */
export function parseInstitutionsFile(text: string, env: Env): InstitutionsFile {
  const raw = dropUnsetOptionalSecrets(yamlTreeOf(text, INSTITUTIONS_FILE), env);
  const labelOf = (path: readonly PropertyKey[]): string => fieldLabel(raw, path);
  const substituted = substituteEnv(raw, { env, file: INSTITUTIONS_FILE, labelOf }).tree;
  const result = InstitutionsFile.safeParse(substituted);
  if (!result.success) {
    throw new StartupFileError(
      INSTITUTIONS_FILE,
      result.error.issues.map((issue) => `${fieldLabel(raw, issue.path)}: ${ruleOfIssue(issue)}`),
    );
  }
  return result.data;
}

/** `institution "01ABC_INST": apiKey`, or by position when the code is missing or invalid. */
function fieldLabel(raw: unknown, path: readonly PropertyKey[]): string {
  const [top, index, ...field] = path;
  if (top !== 'institutions' || typeof index !== 'number') {
    return path.length === 0 ? '(file)' : path.map(String).join('.');
  }
  const entry = institutionsOf(raw)[index];
  const code = isRecord(entry) ? entry.code : undefined;
  const label =
    typeof code === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(code)
      ? `institution "${code}"`
      : `institution #${String(index + 1)} (institutions[${String(index)}])`;
  return field.length === 0 ? label : `${label}: ${field.map(String).join('.')}`;
}

/**
 * `webhookSecretPrevious: ${VAR}` with VAR unset or empty: the field is absent (no rotation going
 * on), so one file serves before, during and after a rotation.
 */
function dropUnsetOptionalSecrets(raw: unknown, env: Env): unknown {
  for (const entry of institutionsOf(raw)) {
    if (!isRecord(entry)) continue;
    const value = entry.webhookSecretPrevious;
    const name = typeof value === 'string' ? ONLY_A_VARIABLE.exec(value)?.[1] : undefined;
    if (name !== undefined && (env[name] ?? '') === '') delete entry.webhookSecretPrevious;
  }
  return raw;
}

function institutionsOf(raw: unknown): unknown[] {
  return isRecord(raw) && Array.isArray(raw.institutions) ? (raw.institutions as unknown[]) : [];
}
