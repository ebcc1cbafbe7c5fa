import { SAMPLE_KINDS } from './sample-events';

/** The right edge of the help's longest lines of that column. */
const WIDTH = 96;

/** The sample kinds (one per kind file, events/kinds/*), wrapped in the help's right column. */
function sampleKindsText(): string {
  const indent = ' '.repeat(35);
  const lines: string[] = [];
  let line = '';
  for (const word of `kinds: ${SAMPLE_KINDS.join(', ')} (a fresh id each time)`.split(' ')) {
    if (line !== '' && indent.length + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.map((text) => `${indent}${text}`).join('\n');
}

/** `npm run events -- help`: every command and option, with the environment it reads. */
export const USAGE_TEXT = `Usage: npm run events -- <command> [options]

Dead letters (reads REDIS_URL and QUEUE_NAME):
  failed [--limit N] [--json]      list failed jobs: id, action, attempts, failed reason
  show <id> [--json]               one job: the BullMQ job id (evt-…) or the event id
  replay <id>                      move one failed job back to waiting (attempts reset)
  replay --all                     the same for every failed job
  --institution <code>             (with each of the above) that member's queue, in a
                                   consortium (INSTITUTIONS_FILE): QUEUE_NAME-inst-<code>

Rejected deliveries: signed, but refused as not an event (reads REDIS_URL, QUEUE_NAME,
DEDUP_WINDOW_HOURS, JOB_ATTEMPTS, REJECTED_MAX_COUNT, REJECTED_MAX_AGE_HOURS, INSTITUTIONS_FILE):
  rejected [--json]                newest first: ref, received, status, bytes, event id, reason
                                   (--json: [{ ref, receivedAt, status, reason, contentType,
                                   bytes, eventId? }])
  rejected show <ref>              the body exactly as received, to stdout
  rejected replay <ref>|--all      parse, normalize and queue the stored bytes again (after an
                                   upgrade); queued entries are removed, refused ones stay;
                                   with INSTITUTIONS_FILE, on each entry's institution's queue
  rejected remove <ref>|--all      drop entries

Routes (reads ROUTES_FILE, REDIS_URL and QUEUE_NAME; docs/routing.md):
  routes [--json]                  each route: destination, state, queue counts, attempts of the
                                   last hour (inline and queued), p95, last result
  routes pause <name>              hold the route's deliveries (events keep arriving and wait);
                                   answers once no delivery can start in any worker
  routes resume <name>             deliver again
  routes replay <name> <id>|--all  failed deliveries of the route back to waiting (attempts reset)
  routes test <name> (--sample <kind> | --file <body.json|.xml>)
                                   does the event match? what would be sent? (nothing is sent;
                                   exit 1 when it does not match)

Event history (reads DATABASE_URL, HISTORY_KEY, HISTORY_SCHEMA; docs/history.md; without
DATABASE_URL: "history is off"):
  history search [--id <event id>] [--user <id>] [--barcode <b>] [--mms <id>] [--loan <id>]
                 [--request <id>] [--job-instance <id>] [--institution <code>] [--action <a>]
                 [--event <code>] [--since <ISO time>] [--until <ISO time>]
                 [--route <name> --outcome delivered|failed|pending|skipped] [--limit N]
                 [--after <cursor>] [--json]
                                   events newest first (a person by the keyed hash of the id)
  history show <event id> [--institution <code>] [--json]
                                   the event's journey: received, queued, taken, each attempt,
                                   job_end files, finished
  history replay --route <name> [search filters] [--dry-run] [--ignore-route-match]
                 [--rate N] [--json]
                                   deliver the matching events the route takes (its match:) to it
                                   again (new job ids; --ignore-route-match sends the others too,
                                   audited; also reads ROUTES_FILE, REDIS_URL, QUEUE_NAME)
  history recover --route <name> --since <ISO time> [--until <ISO time>] [--institution <code>]
                  [--dry-run] [--rate N] [--json]
                                   send again what failed on the route and never succeeded since
                                   (within retention; at most 10000 per run; audited)
  history forget --user <id> [--json]
                                   remove a person from the history and from what Redis holds
  history set-aside [--institution <code>] [--limit N] [--before <cursor>] [--json]
                                   records PostgreSQL refused for their data, newest first
  history migrate | history prune [--json]
                                   bring the schema up to date | retention now

job_end reconciliation (reads the worker's keys: SVC_*, INSTITUTIONS_FILE, IMPORT_JOB_MATCH,
RECONCILE_*, REDIS_URL, QUEUE_NAME; docs/worker.md#reconciliation):
  reconcile [--since <ISO time>] [--dry-run] [--json]
                                   find the job_ends the platform never delivered and queue
                                   them, marked recovered (--dry-run: list them, queue nothing);
                                   without --since, from the last scheduled run less the overlap

Checking a deployment:
  send-test-event --url <listener> [--secret <s>] (--file <body.json|.xml> | --sample <kind>)
                  [--format json|xml] [--timeout MS] [--follow SECONDS]
                                   sign the exact bytes (X-Svc-Signature) and POST them;
                                   prints the status and the listener's answer. A --sample is a
                                   test event (id svcws-test-…): the worker completes it without
                                   work, routes skip it; with REDIS_URL and QUEUE_NAME its job is
                                   followed until completed (default 30 s).
${sampleKindsText()}
                                   --secret falls back to WEBHOOK_SECRET from the environment,
                                   which keeps it out of the shell history
  challenge --url <listener> [--timeout MS]
                                   GET <listener>?challenge=<random> and check the echo

The operator console (docs/console.md):
  console-token --role viewer|operator [--institution <code>] [--name <name>]
                                   a new sign-in token, printed once, and its CONSOLE_TOKENS_FILE
                                   entry (only the token's SHA-256 goes in the file)

Exit status: 0 done, 1 the command failed (named on stderr), 2 the command line is wrong.`;
