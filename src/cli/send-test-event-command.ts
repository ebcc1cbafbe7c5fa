import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { messageOf } from '../message-of';
import { requestFailureOf } from '../request-failure';
import { parseCommandArgs, positiveIntOption } from './parse-command-args';
import { listenerUrl, printableUrl } from './printable-url';
import { SAMPLE_KINDS, sampleEvent } from './sample-events';
import type { SampleFormat, SampleKind } from './sample-events';
import { sendTestEvent } from './send-test-event';
import { followTestEvent } from './follow-test-event';
import { eventKinds } from '../events/kinds/event-kinds';
import { TEST_EVENT_PREFIX } from '../events/test-event';

const CONTENT_TYPES: Record<SampleFormat, string> = {
  json: 'application/json',
  xml: 'application/xml',
};

/**
 * `send-test-event`: what an institution runs before registering a listener — a signed event, as
 * the platform would send it, and the listener's answer in words.
 */
export async function sendTestEventCommand(args: string[], io: CliIo): Promise<number> {
  const command = 'send-test-event';
  const { values, positionals } = parseCommandArgs(command, args, {
    url: { type: 'string' },
    secret: { type: 'string' },
    file: { type: 'string' },
    sample: { type: 'string' },
    format: { type: 'string' },
    timeout: { type: 'string' },
    follow: { type: 'string' },
  });
  if (positionals.length > 0) {
    throw new CliUsageError(`${command}: unexpected argument '${positionals[0] ?? ''}'`);
  }
  const url = listenerUrl(command, values.url);
  const secret = values.secret ?? io.env.WEBHOOK_SECRET;
  if (secret === undefined || secret === '') {
    throw new CliUsageError(`${command}: --secret is required (or set WEBHOOK_SECRET)`);
  }
  const format = formatOf(command, values.format);
  const timeoutMs = positiveIntOption(command, 'timeout', values.timeout, 10_000);
  const followMs = positiveIntOption(command, 'follow', values.follow, 30) * 1000;
  const payload = await payloadOf(command, values.file, values.sample, format);
  // The listener refuses to start with a secret this short (src/config.ts): no listener has it.
  if (secret.length < 16) {
    throw new CliUsageError(
      `${command}: the secret is under 16 characters, so no listener can have it (WEBHOOK_SECRET needs at least 16)`,
    );
  }

  io.out(
    `→ POST ${printableUrl(url)}  ${payload.what}, ${String(payload.body.length)} bytes, ${payload.contentType}, signed (HMAC-SHA256)`,
  );
  let answer;
  try {
    answer = await sendTestEvent({
      url: url.href,
      secret,
      body: payload.body,
      contentType: payload.contentType,
      timeoutMs,
    });
  } catch (error) {
    io.err(`✗ no answer from ${printableUrl(url)}: ${requestFailureOf(error, timeoutMs)}`);
    return 1;
  }
  io.out(`← ${String(answer.status)} ${answer.statusText} in ${String(answer.durationMs)} ms`);
  io.out(`  ${answer.text.length > 500 ? `${answer.text.slice(0, 500)}…` : answer.text}`);
  const verdict = verdictOf(answer.status, answer.text);
  if (answer.status >= 200 && answer.status < 300) {
    io.out(`✓ ${verdict}`);
    // A sample is a test event: followed to the worker where Redis is reachable.
    return payload.eventId === undefined ? 0 : followTestEvent(io, payload.eventId, followMs);
  }
  io.err(`✗ ${verdict}`);
  return 1;
}

function formatOf(command: string, value: string | undefined): SampleFormat | undefined {
  if (value === undefined) return undefined;
  if (value !== 'json' && value !== 'xml') {
    throw new CliUsageError(`${command}: --format must be json or xml`);
  }
  return value;
}

async function payloadOf(
  command: string,
  file: string | undefined,
  sample: string | undefined,
  format: SampleFormat | undefined,
): Promise<{ body: Buffer; contentType: string; what: string; eventId?: string }> {
  if ((file === undefined) === (sample === undefined)) {
    throw new CliUsageError(`${command}: give either --file <body> or --sample <kind>`);
  }
  if (sample !== undefined) {
    if (!(SAMPLE_KINDS as readonly string[]).includes(sample)) {
      throw new CliUsageError(`${command}: --sample must be one of ${SAMPLE_KINDS.join(', ')}`);
    }
    // Marked as a test event: the worker completes it without work and routes skip it.
    const event = sampleEvent(
      sample as SampleKind,
      format ?? 'json',
      new Date(),
      eventKinds,
      TEST_EVENT_PREFIX,
    );
    return {
      ...event,
      what: `sample ${sample} test event ${event.eventId}`,
      eventId: event.eventId,
    };
  }
  const path = file ?? '';
  const byExtension = extname(path).toLowerCase().slice(1);
  const chosen =
    format ?? (byExtension === 'json' || byExtension === 'xml' ? byExtension : undefined);
  if (chosen === undefined) {
    throw new CliUsageError(`${command}: cannot tell the format of ${path}; add --format json|xml`);
  }
  let body: Buffer;
  try {
    body = await readFile(path);
  } catch (error) {
    throw new CliUsageError(`${command}: cannot read --file ${path}: ${messageOf(error)}`);
  }
  return { body, contentType: CONTENT_TYPES[chosen], what: path };
}

/** The listener's error codes (`error` in its answer) for a body refused before the signature is checked. */
const UNREAD_BODY = new Set(['aborted', 'bad_encoding', 'bad_length']);

/**
 * The answer in words, by what each status now means on the listener (src/http/webhook-routes.ts,
 * docs/listener.md "Status codes"): body caps, encoding and reading come before the signature, so
 * only a 400 or 415 about the body's content says the signature held.
 */
function verdictOf(status: number, text: string): string {
  const answer = parsed(text);
  const said = answer.message ?? (text.trim() || '(no message)');
  if (status >= 200 && status < 300) {
    if (answer.status === 'duplicate')
      return `accepted: event ${answer.id ?? '?'} was already queued (a redelivery; not queued twice)`;
    // docs/listener.md#the-spool: the queue did not take it in time; it is on the listener's disk.
    if (answer.status === 'spooled')
      return `accepted: the listener verified the signature and spooled event ${answer.id ?? '?'} to its disk (the queue did not answer; it is queued once Redis answers)`;
    return `accepted: the listener verified the signature and queued event ${answer.id ?? '?'}`;
  }
  switch (status) {
    case 401:
      return "signature refused (401): the secret does not match the listener's WEBHOOK_SECRET (nothing was read or kept)";
    case 408:
      return 'the listener stopped waiting for the request (408: REQUEST_TIMEOUT_MS or HEADERS_TIMEOUT_MS); the signature was not checked and nothing was kept';
    case 413:
      return `body too large (413): ${said}; refused before the signature was checked, nothing was kept`;
    case 404:
    case 405:
      return `no webhook route there (${String(status)}): check the path of --url (WEBHOOK_PATH)`;
    case 500:
      return `the listener failed on the event (500, a defect of the listener): ${said}; the delivery was kept as rejected, see its log`;
    case 503:
      return `the listener could not queue or keep the event (503): ${said}; the platform would send it again later (is Redis up?)`;
  }
  if ((status === 400 || status === 415) && answer.error !== undefined) {
    return answer.error === 'unsupported_encoding' || UNREAD_BODY.has(answer.error)
      ? `the listener could not read the body (${String(status)}): ${said}; refused before the signature was checked, nothing was kept`
      : `the listener verified the signature but refused the body (${String(status)}): ${said}; kept as rejected (npm run events -- rejected)`;
  }
  if (status >= 500)
    return `the listener, or a proxy before it, failed (${String(status)}): ${said}`;
  return `unexpected answer ${String(status)}: ${said}`;
}

function parsed(text: string): {
  status?: string | undefined;
  error?: string | undefined;
  id?: string | undefined;
  message?: string | undefined;
} {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return {};
    const record = value as Record<string, unknown>;
    const pick = (key: string): string | undefined =>
      typeof record[key] === 'string' ? record[key] : undefined;
    return {
      status: pick('status'),
      error: pick('error'),
      id: pick('id'),
      message: pick('message'),
    };
  } catch {
    return {};
  }
}
