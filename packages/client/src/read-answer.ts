import type { PreparedCall } from './prepare-call';
import { readText } from './read-body';
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
    const text = await readText(response.body);
    if (call.accept === 'xml') return text;
    if (text.trim() === '') return undefined;
    return checkedJson(call, text);
  };
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
