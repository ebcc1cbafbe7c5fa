import { HttpError } from '../http/http-error';

/** The console's refusals, one wording each; the API answers `{ error, message }` with the status. */
export const consoleError = {
  unsigned: () => new HttpError(401, 'unsigned', 'sign in, or send Authorization: Bearer <token>'),
  role: (action: string) =>
    new HttpError(403, 'forbidden_role', `${action} needs the operator role`),
  scope: (what: string) =>
    new HttpError(403, 'forbidden_scope', `${what} is outside your institution`),
  notFound: (what: string) => new HttpError(404, 'not_found', `no ${what}`),
  badField: (field: string, rule: string) =>
    new HttpError(400, 'invalid_request', `${field}: ${rule}`),
  csrf: () =>
    new HttpError(
      403,
      'csrf',
      'the form is stale or was not sent from the console: reload and retry',
    ),
};
