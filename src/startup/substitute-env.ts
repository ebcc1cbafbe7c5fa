import { StartupFileError } from './startup-file-error';

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export interface SubstituteEnvOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** The file in words, for the error (`routes file`). */
  file: string;
  /** Names a place in the tree the way the file's own problems do (`route "loans": to.amqp.url`). */
  labelOf: (path: readonly PropertyKey[]) => string;
}

/** A start-up file's tree after substitution, and every value the environment put into it. */
export interface SubstitutedFile {
  readonly tree: unknown;
  /**
   * The values substituted: secrets wherever they could be shown (a log line, an error, a page),
   * so whoever shows text made of the file masks them (create-secret-redactor.ts).
   */
  readonly substituted: ReadonlySet<string>;
}

/**
 * Replaces `${VAR}` in every string of a parsed start-up file with that environment variable, so
 * secrets (broker passwords, API keys, HMAC secrets) stay out of the file. It works on the parsed
 * tree, not the text: a value holding `:` or a newline cannot change the file's structure. A
 * variable that is unset (or empty) is a StartupFileError naming it and where it is used — never
 * its value.
 */
export function substituteEnv(
  raw: unknown,
  { env, file, labelOf }: SubstituteEnvOptions,
): SubstitutedFile {
  const missing: string[] = [];
  const substituted = new Set<string>();
  const walk = (value: unknown, path: PropertyKey[]): unknown => {
    if (typeof value === 'string') {
      return value.replace(VARIABLE, (_match, name: string) => {
        const found = env[name];
        if (found === undefined || found === '') {
          missing.push(`${labelOf(path)}: environment variable ${name} is not set`);
          return '';
        }
        substituted.add(found);
        return found;
      });
    }
    if (Array.isArray(value)) return value.map((item, index) => walk(item, [...path, index]));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, walk(item, [...path, key])]),
      );
    }
    return value;
  };
  const tree = walk(raw, []);
  if (missing.length > 0) throw new StartupFileError(file, missing);
  return { tree, substituted };
}
