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
  routes [--json]                  each route: destination, waiting, delayed, failed, delivered, paused
  routes pause <name>              hold the route's deliveries (events keep arriving and wait)
  routes resume <name>             deliver again
  routes replay <name> <id>|--all  failed deliveries of the route back to waiting (attempts reset)
  routes test <name> (--sample <kind> | --file <body.json|.xml>)
                                   does the event match? what would be sent? (nothing is sent;
                                   exit 1 when it does not match)

Checking a deployment:
  send-test-event --url <listener> [--secret <s>] (--file <body.json|.xml> | --sample <kind>)
                  [--format json|xml] [--timeout MS]
                                   sign the exact bytes (X-Svc-Signature) and POST them;
                                   prints the status and the listener's answer.
                                   kinds: job_end, job_end_minimal, loan (a fresh id each time)
                                   --secret falls back to WEBHOOK_SECRET from the environment,
                                   which keeps it out of the shell history
  challenge --url <listener> [--timeout MS]
                                   GET <listener>?challenge=<random> and check the echo

The operator console (docs/console.md):
  console-token --role viewer|operator [--institution <code>] [--name <name>]
                                   a new sign-in token, printed once, and its CONSOLE_TOKENS_FILE
                                   entry (only the token's SHA-256 goes in the file)

Exit status: 0 done, 1 the command failed (named on stderr), 2 the command line is wrong.`;
