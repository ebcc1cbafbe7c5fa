import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { messageOf } from './message-of';
import { parseCommandArgs, positiveIntOption } from './parse-command-args';
import { listenerUrl, printableUrl } from './printable-url';
import { SAMPLE_KINDS, sampleEvent } from './sample-events';
import type { SampleFormat, SampleKind } from './sample-events';
import { sendTestEvent } from './send-test-event';

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
  const payload = await payloadOf(command, values.file, values.sample, format);

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
    io.err(`✗ no answer from ${printableUrl(url)}: ${messageOf(error)}`);
    return 1;
  }
  io.out(`← ${String(answer.status)} ${answer.statusText} in ${String(answer.durationMs)} ms`);
  io.out(`  ${answer.text.length > 500 ? `${answer.text.slice(0, 500)}…` : answer.text}`);
  const verdict = verdictOf(answer.status, answer.text);
  if (answer.status >= 200 && answer.status < 300) {
    io.out(`✓ ${verdict}`);
    return 0;
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
): Promise<{ body: Buffer; contentType: string; what: string }> {
  if ((file === undefined) === (sample === undefined)) {
    throw new CliUsageError(`${command}: give either --file <body> or --sample <kind>`);
  }
  if (sample !== undefined) {
    if (!(SAMPLE_KINDS as readonly string[]).includes(sample)) {
      throw new CliUsageError(`${command}: --sample must be one of ${SAMPLE_KINDS.join(', ')}`);
    }
    const event = sampleEvent(sample as SampleKind, format ?? 'json');
    return { ...event, what: `sample ${sample} event ${event.eventId}` };
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

function verdictOf(status: number, text: string): string {
  const answer = parsed(text);
  if (status >= 200 && status < 300) {
    return answer.status === 'duplicate'
      ? `accepted: event ${answer.id ?? '?'} was already queued (a redelivery; not queued twice)`
      : `accepted: the listener verified the signature and queued event ${answer.id ?? '?'}`;
  }
  if (status === 401) {
    return "signature refused (401): the secret does not match the listener's WEBHOOK_SECRET";
  }
  if (status === 400 || status === 413 || status === 415) {
    return `the listener verified the signature but refused the body (${String(status)}): ${answer.message ?? text}`;
  }
  if (status === 404 || status === 405) {
    return `no webhook route there (${String(status)}): check the path of --url (WEBHOOK_PATH)`;
  }
  if (status >= 500) {
    return `the listener could not queue the event (${String(status)}): ${answer.message ?? 'is Redis up?'}`;
  }
  return `unexpected answer ${String(status)}`;
}

function parsed(text: string): {
  status?: string | undefined;
  id?: string | undefined;
  message?: string | undefined;
} {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return {};
    const record = value as Record<string, unknown>;
    const pick = (key: string): string | undefined =>
      typeof record[key] === 'string' ? record[key] : undefined;
    return { status: pick('status'), id: pick('id'), message: pick('message') };
  } catch {
    return {};
  }
}
