import type { PreparedCall } from './prepare-call';
import { BodyOverCap, readText } from './read-body';
import type { Consume } from './send-request';
import { SvcApiError } from './svc-api-error';

/**
 * Reads a 2xx document answer: 204 is `undefined` (spec §1.4, §7 rule 4), XML is the text as it
 * came, JSON is parsed and, where the row has a response schema, checked and typed by it.
 */
export function answerReader(call: PreparedCall): Consume<unknown> {
  return async (response) => {
    if (response.status === 204) {
      response.body.resume();
      return undefined;
    }
    const text = await cappedText(call, response);
    if (call.accept === 'xml') return text;
    if (text.trim() === '') return undefined;
    return checkedJson(call, text);
  };
}

/** The answer's text within the call's cap: a Content-Length past it is refused unread. */
async function cappedText(
  call: PreparedCall,
  response: Parameters<Consume<unknown>>[0],
): Promise<string> {
  const cap = call.bodyCap;
  if (cap === undefined) return readText(response.body);
  const declared = Number(response.header('content-length') ?? Number.NaN);
  try {
    if (declared > cap) {
      response.body.destroy();
      throw new BodyOverCap(cap);
    }
    return await readText(response.body, cap);
  } catch (error) {
    if (!(error instanceof BodyOverCap)) throw error;
    throw bodyTooLarge(call, response.status, cap);
  }
}

/** Never retried: the same call would bring the same answer. */
function bodyTooLarge(call: PreparedCall, status: number, cap: number): SvcApiError {
  const { endpoint } = call;
  return new SvcApiError({
    message: `${endpoint.operation}: the answer is larger than ${String(cap)} bytes, the cap of a${endpoint.list ? ' list page' : 'n answer'} (maxBodyBytes.${endpoint.list ? 'list' : 'document'})`,
    status,
    code: 'BODY_TOO_LARGE',
    meaning: undefined,
    operation: endpoint.operation,
    method: endpoint.method,
    route: endpoint.route,
    url: call.redactedUrl,
    retryable: false,
    limitBytes: cap,
  });
}

function checkedJson(call: PreparedCall, text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidResponse(call, 'the answer is not valid JSON');
  }
  const schema = call.endpoint.response;
  if (!schema) return value;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue ? issue.path.join('.') || '(root)' : '(root)';
  throw invalidResponse(
    call,
    `the answer does not match the ${call.endpoint.operation} response shape at ${where}`,
  );
}

/** The answer came but is not what the row or the call promised; never retried. */
export function invalidResponse(call: PreparedCall, message: string): SvcApiError {
  const { endpoint } = call;
  return new SvcApiError({
    message: `${endpoint.operation}: ${message}`,
    status: undefined,
    code: 'INVALID_RESPONSE',
    meaning: undefined,
    operation: endpoint.operation,
    method: endpoint.method,
    route: endpoint.route,
    url: call.redactedUrl,
    retryable: false,
  });
}
