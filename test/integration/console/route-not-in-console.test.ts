import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HISTORY_CONSOLE_TOKENS as TOKENS,
  startConsoleWithHistory,
} from '../../helpers/console-with-history';
import type { ConsoleWithHistory } from '../../helpers/console-with-history';
import { fixtureEvent } from '../../helpers/history-events';
import { recordFinalFailures } from '../../helpers/record-final-failures';
import { startRoutesWorker, workersRunning } from '../../helpers/routes-worker';
import type { RoutesWorker } from '../../helpers/routes-worker';
import { pageText } from '../../helpers/page-text';

jest.setTimeout(90_000);

/** Added to the routes file after the console started, then run by a restarted worker. */
const NEW_ROUTE = 'requests';
const REFUSAL = {
  error: 'route_not_in_console',
  message: `route ${NEW_ROUTE} is run by the workers but was added to the routes file after the console started: restart the console to replay to it or pause it`,
};

describe('a route only the workers run (added since the console started) is refused, not guessed', () => {
  let running: ConsoleWithHistory;
  let worker: RoutesWorker;
  let dir: string;
  const since = new Date(Date.now() - 60_000).toISOString();
  const request = fixtureEvent('request-created', { id: 'rnc-request' });

  const call = async (path: string, body?: unknown) => {
    const response = await fetch(`${running.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${TOKENS.operator}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, json: () => JSON.parse(text) as unknown };
  };

  beforeAll(async () => {
    running = await startConsoleWithHistory();
    dir = await mkdtemp(join(tmpdir(), 'svc-route-not-in-console-'));
    // It failed on `requests` (as the new file sends it there): a candidate a recovery would take.
    await running.record([request], (recorder) =>
      recordFinalFailures(recorder, [request], {
        route: NEW_ROUTE,
        attempt: 3,
        status: 500,
        error: 'HTTP 500',
        durationMs: 2,
      }),
    );
    const env = running.cliEnv();
    await appendFile(
      env.ROUTES_FILE ?? '',
      `  - name: ${NEW_ROUTE}\n    match: { action: [request] }\n` +
        '    to: { http: { url: "http://127.0.0.1:9/requests" } }\n',
    );
    worker = startRoutesWorker(
      { QUEUE_NAME: running.queueName, ROUTES_FILE: env.ROUTES_FILE ?? '' },
      dir,
    );
    await workersRunning(running.redis, running.queueName, ['loans', NEW_ROUTE]);
  });

  afterAll(async () => {
    await worker?.close();
    await running?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['a replay by query’s dry run', '/api/v1/replays', { route: NEW_ROUTE, filters: { since } }],
    [
      'a replay by query',
      '/api/v1/replays',
      { route: NEW_ROUTE, filters: { since }, dryRun: false },
    ],
    ['a recovery’s dry run', '/api/v1/recoveries', { route: NEW_ROUTE, since }],
    ['a recovery', '/api/v1/recoveries', { route: NEW_ROUTE, since, dryRun: false }],
    ['a replay of its failed deliveries', `/api/v1/routes/${NEW_ROUTE}/replay`, {}],
    ['a pause', `/api/v1/routes/${NEW_ROUTE}/pause`, {}],
  ])(
    'answers %s 409 route_not_in_console, naming the route and the restart',
    async (_what, path, body) => {
      const answer = await call(path, body);

      expect(answer.status).toBe(409);
      expect(answer.json()).toEqual(REFUSAL);
    },
  );

  it('still answers 404 for a route neither the console nor any worker has', async () => {
    const answer = await call('/api/v1/replays', { route: 'nowhere', filters: { since } });

    expect(answer.status).toBe(404);
    expect(answer.json()).toMatchObject({ error: 'not_found', message: 'no route nowhere' });
  });

  it('says so on the pages: the replay form’s refusal and the route’s section of the routes page', async () => {
    const replay = await call(`/replays?route=${NEW_ROUTE}&since=${encodeURIComponent(since)}`);
    expect(replay.status).toBe(409);
    expect(pageText(replay.text)).toContain(REFUSAL.message);
    const recovery = await call(
      `/recoveries?route=${NEW_ROUTE}&since=${encodeURIComponent(since)}`,
    );
    expect(recovery.status).toBe(409);
    expect(pageText(recovery.text)).toContain(REFUSAL.message);

    const routes = pageText((await call('/routes')).text);
    expect(routes).toContain(`${NEW_ROUTE} (new: run by workers, not in the console's file)`);
    expect(routes).toContain(
      `This console cannot replay to ${NEW_ROUTE} or pause it: it knows a route's match and retries only from the file it read at its start. Restart the console to act on it.`,
    );
  });
});
