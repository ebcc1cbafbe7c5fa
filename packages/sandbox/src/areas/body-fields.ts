import { badRequest } from '../sandbox-error';

export type Body = Record<string, unknown>;

/** The request body as an object, or `code` (the operation's "not created / not updated" code). */
export function objectBody(body: unknown, code: string): Body {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest(code, 'The request body must be an object');
  }
  return body as Body;
}

/** Text of a plain or code field (`"X"`, `12`, `{"value": "X"}`); undefined when absent or blank. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value !== null && typeof value === 'object' && 'value' in value) return textOf(value.value);
  return undefined;
}

/** A nested field by dotted path: `fieldAt(body, 'partner_details.code')`. */
export function fieldAt(body: Body, path: string): unknown {
  let node: unknown = body;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Body)[key];
  }
  return node;
}

export function textAt(body: Body, path: string): string | undefined {
  return textOf(fieldAt(body, path));
}

/** The field's text, or `code` with a message that names the field. */
export function requiredText(body: Body, path: string, code: string): string {
  const text = textAt(body, path);
  if (text === undefined) throw badRequest(code, `Mandatory field is missing: ${path}`);
  return text;
}

/** An optional field's text checked against `valid`; `code` names the field and the value. */
export function checkedText(
  body: Body,
  path: string,
  valid: (text: string) => boolean,
  code: string,
): string | undefined {
  const text = textAt(body, path);
  if (text !== undefined && !valid(text)) throw badRequest(code, `Invalid ${path}: ${text}`);
  return text;
}

export function arrayAt(body: Body, path: string): Body[] {
  const value = fieldAt(body, path);
  if (!Array.isArray(value)) return [];
  return value.filter((entry): entry is Body => entry !== null && typeof entry === 'object');
}

export function code(value: string, desc: string = value): { value: string; desc: string } {
  return { value, desc };
}

/** The field's value from `valid` (or `fallback` when absent); else `errorCode` naming the field. */
export function enumField<T extends string>(
  body: Body,
  path: string,
  valid: readonly T[],
  fallback: T,
  errorCode: string,
): T {
  const text = textAt(body, path) ?? fallback;
  const found = valid.find((value) => value === text);
  if (found === undefined) throw badRequest(errorCode, `${path} not valid: ${text}`);
  return found;
}
