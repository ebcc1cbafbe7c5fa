import { RoutesFileError } from './routes-file-error';
import { routeFieldLabel } from './route-field-label';

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces `${VAR}` in every string of the parsed routes file with that environment variable, so
 * secrets (broker passwords, HMAC secrets) stay out of the file. It works on the parsed tree, not
 * the text: a value holding `:` or a newline cannot change the file's structure. A variable that
 * is unset (or empty) is an error naming it and where it is used — never its value.
 */
export function substituteEnv(
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
): unknown {
  const missing: string[] = [];
  const walk = (value: unknown, path: PropertyKey[]): unknown => {
    if (typeof value === 'string') {
      return value.replace(VARIABLE, (_match, name: string) => {
        const found = env[name];
        if (found === undefined || found === '') {
          missing.push(`${routeFieldLabel(raw, path)}: environment variable ${name} is not set`);
          return '';
        }
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
  const result = walk(raw, []);
  if (missing.length > 0) throw new RoutesFileError(missing);
  return result;
}
