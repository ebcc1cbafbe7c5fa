import type { BodyFormat, Endpoint } from './endpoint';
import { buildUrl, placeholdersOf } from './build-url';
import { redactUrl } from './redact-url';
import { SvcApiError } from './svc-api-error';
import { SvcParamError } from './svc-param-error';
import { validateQuery } from './validate-query';
import { isRecord } from './is-record';

/** A call checked against its row and ready to send. */
export interface PreparedCall {
  readonly endpoint: Endpoint;
  readonly url: URL;
  /** `url` with the key replaced: the only form that reaches logs and errors. */
  readonly redactedUrl: string;
  /** The request body's format (`Content-Type`). */
  readonly format: BodyFormat;
  /** The answer's format (`Accept`): the body's unless the caller asked for the other. */
  readonly accept: BodyFormat;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  /** The most bytes a 2xx answer may have (body-caps.ts); undefined: no cap (a download). */
  readonly bodyCap?: number | undefined;
}

export interface CallInput {
  readonly path?: Readonly<Record<string, string>> | undefined;
  readonly query?: unknown;
  readonly body?: unknown;
  readonly format?: BodyFormat | undefined;
  readonly accept?: BodyFormat | undefined;
}

const MEDIA_TYPE: Readonly<Record<BodyFormat, string>> = {
  json: 'application/json',
  xml: 'application/xml',
};

/** spec §7 rule 5: the letter update refuses JSON with this code. */
const JSON_NOT_SUPPORTED = '60105';

/**
 * Checks a call against its row before any network use: path placeholders, the query schema
 * (§2, §4, §8 rules), the body's presence, format and rule. A violation throws `SvcParamError`
 * naming the parameter and the rule; JSON sent to an XML-only operation throws the platform's own
 * refusal (code 60105) without spending a call of the governance budget.
 */
export function prepareCall(
  endpoint: Endpoint,
  input: CallInput,
  baseUrl: string,
  apiKey: string,
): PreparedCall {
  const format = input.format ?? 'json';
  const accept = input.accept ?? format;
  const pathParams = checkPath(endpoint, input.path ?? {});
  const query = checkQuery(endpoint, input.query ?? {});
  const url = buildUrl(baseUrl, endpoint.path, pathParams, query, apiKey);
  const redactedUrl = redactUrl(url);
  const body = checkBody(endpoint, input.body, format, redactedUrl);
  const headers: Record<string, string> = { accept: MEDIA_TYPE[accept] };
  if (body !== undefined) headers['content-type'] = `${MEDIA_TYPE[format]}; charset=utf-8`;
  return { endpoint, url, redactedUrl, format, accept, headers, body };
}

function checkPath(
  endpoint: Endpoint,
  given: Readonly<Record<string, string>>,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of placeholdersOf(endpoint.path)) {
    const value: unknown = given[name];
    if (typeof value !== 'string' || value === '') {
      throw new SvcParamError({
        operation: endpoint.operation,
        parameter: name,
        rule: 'is required in the path',
      });
    }
    // `.` and `..` survive encodeURIComponent and the URL parser would resolve them away.
    if (value === '.' || value === '..') {
      throw new SvcParamError({
        operation: endpoint.operation,
        parameter: name,
        rule: 'must not be . or ..',
      });
    }
    values[name] = value;
  }
  return values;
}

function checkQuery(endpoint: Endpoint, query: unknown): Record<string, unknown> {
  const result = validateQuery(endpoint, query);
  if (!result.ok) {
    const first = result.violations[0] ?? { parameter: '(query)', rule: 'is not valid' };
    throw new SvcParamError({ operation: endpoint.operation, ...first });
  }
  return isRecord(result.query) ? result.query : {};
}

function checkBody(
  endpoint: Endpoint,
  body: unknown,
  format: BodyFormat,
  redactedUrl: string,
): string | undefined {
  if (endpoint.body === 'none') {
    if (body !== undefined) {
      throw new SvcParamError({
        operation: endpoint.operation,
        parameter: 'body',
        rule: 'is not taken by this operation',
      });
    }
    return undefined;
  }
  if (body === undefined || body === null || body === '') {
    throw new SvcParamError({
      operation: endpoint.operation,
      parameter: 'body',
      rule: 'is required',
    });
  }
  if (!endpoint.bodyFormats.includes(format)) {
    throw new SvcApiError({
      message: `${format.toUpperCase()} not supported: ${endpoint.operation} accepts ${endpoint.bodyFormats.join(' or ').toUpperCase()} bodies only`,
      status: undefined,
      code: format === 'json' ? JSON_NOT_SUPPORTED : undefined,
      meaning: format === 'json' ? 'JSON not supported' : undefined,
      operation: endpoint.operation,
      method: endpoint.method,
      route: endpoint.route,
      url: redactedUrl,
      retryable: false,
    });
  }
  if (format === 'xml' && typeof body !== 'string') {
    throw new SvcParamError({
      operation: endpoint.operation,
      parameter: 'body',
      rule: 'must be an XML document as a string',
    });
  }
  const rule = endpoint.bodyRule?.(body);
  if (rule !== undefined)
    throw new SvcParamError({ operation: endpoint.operation, parameter: 'body', rule: rule });
  return typeof body === 'string' && format === 'xml' ? body : JSON.stringify(body);
}
