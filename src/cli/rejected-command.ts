import { loadConfig } from '../config';
import { createRejectedStore } from '../events/rejected-store';
import type { RejectedEntry, RejectedStore } from '../events/rejected-store';
import { loadInstitutionsFile } from '../institutions/load-institutions-file';
import { CliRejectedConfig } from './cli-config';
import type { CliIo } from './cli-io';
import { CliUsageError } from './cli-usage-error';
import { openCliQueue } from './open-cli-queue';
import type { CliQueue } from './open-cli-queue';
import { parseCommandArgs } from './parse-command-args';
import { replayRejected } from './replay-rejected';
import { createReplayTargets } from '../operations/replay-targets';

const REASON_WIDTH = 70;

/**
 * `rejected [--json] | show <ref> | replay <ref>|--all | remove <ref>|--all`: the signed
 * deliveries the listener could not turn into an event, kept with their bytes.
 */
export async function rejectedCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('rejected', args, {
    json: { type: 'boolean' },
    all: { type: 'boolean' },
  });
  const [action = 'list', ref, extra] = positionals;
  if (extra !== undefined) throw new CliUsageError(`rejected: unexpected argument '${extra}'`);
  if (action === 'list' && ref !== undefined) {
    throw new CliUsageError(`rejected: unknown action '${ref}'`);
  }
  if (!['list', 'show', 'replay', 'remove'].includes(action)) {
    throw new CliUsageError(`rejected: unknown action '${action}'; use show, replay or remove`);
  }
  const all = values.all === true;
  if (action !== 'list') checkTarget(action, ref, all);

  const config = loadConfig(CliRejectedConfig, io.env);
  const cli = await openCliQueue(io.env);
  const store = createRejectedStore({
    redis: cli.connection,
    queueName: config.QUEUE_NAME,
    maxCount: config.REJECTED_MAX_COUNT,
    maxAgeHours: config.REJECTED_MAX_AGE_HOURS,
  });
  try {
    if (action === 'list') return await list(store, cli, io, values.json === true);
    if (action === 'show') return await show(store, ref ?? '', io);
    const refs = all ? (await store.list()).map((entry) => entry.ref) : [ref ?? ''];
    if (action === 'remove') return await remove(store, refs, all, io);
    return await replay(store, cli, config, refs, io);
  } finally {
    await cli.close();
  }
}

/**
 * With INSTITUTIONS_FILE each entry goes to its institution's queue. The file is read as the
 * listener reads it (with its `${VAR}` secrets), so a code it no longer lists is refused.
 */
async function replay(
  store: RejectedStore,
  cli: CliQueue,
  config: CliRejectedConfig,
  refs: string[],
  io: CliIo,
): Promise<number> {
  const institutions =
    config.INSTITUTIONS_FILE === undefined
      ? undefined
      : loadInstitutionsFile(config.INSTITUTIONS_FILE, io.env).institutions.map(({ code }) => code);
  const targets = createReplayTargets({
    queue: cli.queue,
    connection: cli.connection,
    institutions,
    dedupWindowHours: config.DEDUP_WINDOW_HOURS,
    attempts: config.JOB_ATTEMPTS,
  });
  try {
    return await replayRejected({ store, targets, refs, io });
  } finally {
    await targets.close();
  }
}

function checkTarget(action: string, ref: string | undefined, all: boolean): void {
  if (action === 'show' && (all || ref === undefined)) {
    throw new CliUsageError('rejected show: give one ref (from `rejected`)');
  }
  if (all && ref !== undefined) {
    throw new CliUsageError(`rejected ${action}: give either a ref or --all, not both`);
  }
  if (!all && ref === undefined) {
    throw new CliUsageError(`rejected ${action}: give a ref (from \`rejected\`) or --all`);
  }
}

async function list(
  store: RejectedStore,
  cli: CliQueue,
  io: CliIo,
  json: boolean,
): Promise<number> {
  const entries = await store.list();
  if (json) {
    io.out(JSON.stringify(entries.map(publicFields), null, 2));
    return 0;
  }
  if (entries.length === 0) {
    io.out(`No rejected deliveries for queue ${cli.queue.name} (${cli.target}).`);
    return 0;
  }
  const count = entries.length;
  io.out(`${String(count)} rejected deliver${count === 1 ? 'y' : 'ies'}, newest first:`);
  for (const entry of entries) {
    const when = entry.receivedAt.replace(/\.\d{3}Z$/, 'Z');
    const cells = [entry.ref, when, String(entry.status), `${String(entry.bytes)} B`];
    io.out(`${cells.join('  ')}  ${entry.eventId ?? '-'}  ${oneLine(entry.reason)}`);
  }
  io.out(
    '`rejected show <ref>` prints the body as received; `rejected replay <ref>|--all` queues it.',
  );
  return 0;
}

/** The documented `--json` shape; the request id stays inside (it is in the delivery log). */
function publicFields(entry: RejectedEntry): Omit<RejectedEntry, 'requestId'> {
  const { requestId: _requestId, ...rest } = entry;
  return rest;
}

async function show(store: RejectedStore, ref: string, io: CliIo): Promise<number> {
  const found = await store.get(ref);
  if (found === undefined) {
    io.err(`No rejected delivery ${ref}.`);
    return 1;
  }
  if (io.outBytes) io.outBytes(found.body);
  else io.out(found.body.toString('utf8'));
  return 0;
}

async function remove(
  store: RejectedStore,
  refs: string[],
  all: boolean,
  io: CliIo,
): Promise<number> {
  let removed = 0;
  for (const ref of refs) {
    if (await store.remove(ref)) removed += 1;
    else io.err(`No rejected delivery ${ref}.`);
  }
  io.out(`${String(removed)} rejected deliver${removed === 1 ? 'y' : 'ies'} removed.`);
  return all || removed === refs.length ? 0 : 1;
}

function oneLine(reason: string): string {
  const flat = reason.replace(/\s+/g, ' ').trim();
  return flat.length > REASON_WIDTH ? `${flat.slice(0, REASON_WIDTH - 1)}…` : flat;
}
