/** A console API answer: its status, its Location (a run started), its JSON body. */
export interface ConsoleApiAnswer {
  readonly status: number;
  readonly location: string | null;
  readonly body: Record<string, unknown>;
}

/**
 * Calls of the console's JSON API at `url` (its origin) with a Bearer `token`: a GET without a
 * body, a POST of the body as JSON with one; `path` is under `/api/v1`.
 */
export function consoleApiCall(
  url: string,
  token: string,
): (path: string, body?: unknown) => Promise<ConsoleApiAnswer> {
  return async (path, body) => {
    const response = await fetch(`${url}/api/v1${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: response.status,
      location: response.headers.get('location'),
      body: (await response.json()) as Record<string, unknown>,
    };
  };
}
