import { isRecord } from '../is-record';
import { ruleOfIssue } from '../rule-of-issue';
import { readFileText, yamlTreeOf } from '../yaml-file';
import { RoutesFileError } from '../routes/routes-file-error';
import { substituteEnv } from '../routes/substitute-env';
import { InstitutionsFile } from './institutions-file';
import { InstitutionsFileError } from './institutions-file-error';

type Env = Readonly<Record<string, string | undefined>>;

const institutionsFileError = (problems: string[]): Error => new InstitutionsFileError(problems);

const ONLY_A_VARIABLE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * Reads INSTITUTIONS_FILE once, at start-up, as the routes file is read: YAML (JSON is YAML too),
 * `${VAR}` substitution on the parsed tree (routes/substitute-env.ts), then the schema. Any
 * problem throws an InstitutionsFileError naming the institution and the field.
 */
export function loadInstitutionsFile(path: string, env: Env): InstitutionsFile {
  return parseInstitutionsFile(readFileText(path, institutionsFileError), env);
}

/** The same from the file's text. */
export function parseInstitutionsFile(text: string, env: Env): InstitutionsFile {
  const raw = dropUnsetOptionalSecrets(yamlTreeOf(text, institutionsFileError), env);
  let substituted: unknown;
  try {
    substituted = substituteEnv(raw, env);
  } catch (error) {
    if (!(error instanceof RoutesFileError)) throw error;
    // substituteEnv names a field by its path (institutions.0.apiKey): name the institution.
    throw new InstitutionsFileError(
      error.problems.map((problem) =>
        problem.replace(/^institutions\.(\d+)\.?([^:]*)/, (_all, index: string, field: string) =>
          fieldLabel(raw, ['institutions', Number(index), ...(field === '' ? [] : [field])]),
        ),
      ),
    );
  }
  const result = InstitutionsFile.safeParse(substituted);
  if (!result.success) {
    throw new InstitutionsFileError(
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
