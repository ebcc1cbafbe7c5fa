import { HttpError } from '../../http/http-error';
import type { RunRefusal } from '../../operations/running-runs';

/** The console's refusals, one wording each; the API answers `{ error, message }` with the status. */
export const consoleError = {
  unsigned: () => new HttpError(401, 'unsigned', 'sign in, or send Authorization: Bearer <token>'),
  role: (action: string) =>
    new HttpError(403, 'forbidden_role', `${action} needs the operator role`),
  scope: (what: string) =>
    new HttpError(403, 'forbidden_scope', `${what} is outside your institution`),
  notFound: (what: string) => new HttpError(404, 'not_found', `no ${what}`),
  /**
   * A route the workers run (their registry, routes-run-registry.ts) that the console's routes file
   * did not have at its start: the console knows a route's match:, where: and retries only from that
   * file, so a replay or a pause of it would guess them.
   */
  routeNotInConsole: (name: string) =>
    new HttpError(
      409,
      'route_not_in_console',
      `route ${name} is run by the workers but was added to the routes file after the console started: restart the console to replay to it or pause it`,
    ),
  /**
   * A second recovery of a route while one runs (src/operations/recovery-lock.ts), or a run past
   * REPLAY_MAX_RUNNING (src/operations/running-runs.ts): the code says which, the words name them.
   */
  runRefused: (refusal: RunRefusal) => new HttpError(409, refusal.code, refusal.message),
  badField: (field: string, rule: string) =>
    new HttpError(400, 'invalid_request', `${field}: ${rule}`),
  redisDown: (what: string) =>
    new HttpError(
      503,
      'redis_down',
      `${what} cannot be read: Redis does not answer (the queues, routes and rejected deliveries live there)`,
    ),
  csrf: () =>
    new HttpError(
      403,
      'csrf',
      'the form is stale or was not sent from the console: reload and retry',
    ),
};

/** Any error as the console answers it: its own refusals as they are, anything else a 500. */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const status = (error as { status?: unknown } | null)?.status;
  // express.json's own errors: a body that is not JSON or is too large.
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new HttpError(status, 'invalid_request', 'body: not JSON, or too large');
  }
  return new HttpError(500, 'internal', 'the console could not answer; see its log');
}
