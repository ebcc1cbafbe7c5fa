import { readFileSync } from 'node:fs';
import type { RedisClient } from '../../../src/redis/redis-client';
import { runCli } from '../../../src/cli/run-cli';
import type { CanonicalEvent } from '../../../src/events/canonical-event';
import { openWorkerConnection } from '../../../src/redis/open-worker-connection';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import { startRouting } from '../../../src/routes/start-routing';
import type { Routing } from '../../../src/routes/start-routing';
import { captureIo } from '../../component/cli/cli-io-capture';
import { consoleApiCall } from '../../helpers/console-api-call';
import { eventually, silentLogger } from '../../component/routes/support/route-events';
import {
  HISTORY_CONSOLE_TOKENS as TOKENS,
  startConsoleWithHistory,
} from '../../helpers/console-with-history';
import type { ConsoleWithHistory } from '../../helpers/console-with-history';
import { fixtureEvent } from '../../helpers/history-events';
import { recordFinalFailures } from '../../helpers/record-final-failures';
import { startRecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import type { RecordingHttpReceiver } from '../../helpers/recording-http-receiver';
import { TEST_REDIS_URL } from '../../helpers/redis';

jest.setTimeout(120_000);

const ROUTES = ['loans', 'main-loans', 'inst-b'] as const;
type RouteName = (typeof ROUTES)[number];

/** When each surface's events were received: each recovery's window holds its own events only. */
const START = Date.now();
const WINDOWS = {
  cli: { since: START - 50_000, at: START - 40_000, until: START - 30_000 },
  api: { since: START - 30_000, at: START - 20_000, until: START - 10_000 },
} as const;
type Surface = keyof typeof WINDOWS;

/** Six events of one surface; each failed for good on every route (as if the file sent it there). */
function eventsOf(surface: Surface): Record<string, CanonicalEvent> {
  const receivedAt = new Date(WINDOWS[surface].at).toISOString();
  const make = (name: string, id: string, institution?: string): CanonicalEvent => {
    const event = fixtureEvent(name, { id: `${surface}-${id}`, receivedAt });
    return institution === undefined ? event : { ...event, institution: { value: institution } };
  };
  const law = make('loan-created', 'law-loan');
  const itemLoan = law.item_loan as Record<string, unknown>;
  return {
    mainLoan: make('loan-returned', 'main-loan'),
    lawLoan: { ...law, item_loan: { ...itemLoan, library: { value: 'LAW', desc: 'Law' } } },
    jobEnd: make('job-end', 'job-end'),
    user: make('user-updated', 'user'),
    itemB: make('item-updated', 'item-b', 'INST_B'),
    loanB: make('loan-returned', 'loan-b', 'INST_B'),
  };
}

/**
 * Each recovery, and what it must send: `loans` (match: loan) held to 01SVC_INST, `main-loans`
 * (where: library MAIN) and `inst-b` (match: institution INST_B) over every institution.
 */
const RECOVERIES: readonly {
  route: RouteName;
  institution?: string;
  sends: readonly string[];
  leftOut: number;
}[] = [
  { route: 'loans', institution: '01SVC_INST', sends: ['mainLoan', 'lawLoan'], leftOut: 2 },
  { route: 'main-loans', sends: ['mainLoan', 'loanB'], leftOut: 4 },
  { route: 'inst-b', sends: ['itemB', 'loanB'], leftOut: 4 },
];

describe('a recovery sends a route only what its match:, where: and institution take (CLI and API)', () => {
  let receiver: RecordingHttpReceiver;
  let running: ConsoleWithHistory;
  let connection: RedisClient;
  let routing: Routing;
  const events = { cli: eventsOf('cli'), api: eventsOf('api') };

  /** The event ids a route's destination received (each request's body names its event). */
  const receivedOn = (route: RouteName, surface: Surface): string[] =>
    receiver.requests
      .filter((one) => one.path === `/hooks/${route}`)
      .flatMap((one) =>
        Object.values(events[surface])
          .filter((event) => one.body.includes(`"${event.id}"`))
          .map((event) => event.id),
      )
      .sort();

  beforeAll(async () => {
    receiver = await startRecordingHttpReceiver(200);
    const to = (route: string) => `{ http: { url: "${receiver.origin}/hooks/${route}" } }`;
    running = await startConsoleWithHistory({
      replayRatePerSecond: 200,
      loansTo: to('loans'),
      moreRoutes: [
        {
          name: 'main-loans',
          match: '{ action: [loan], where: { item_loan.library: [MAIN] } }',
          to: to('main-loans'),
        },
        { name: 'inst-b', match: '{ institution: [INST_B] }', to: to('inst-b') },
      ],
    });
    // The workers' routing over the same routes file: it delivers what a recovery queues.
    connection = openWorkerConnection(TEST_REDIS_URL, silentLogger);
    routing = startRouting({
      connection,
      routes: parseRoutesFile(readFileSync(running.cliEnv().ROUTES_FILE ?? '', 'utf8'), {}).routes,
      redisUrl: TEST_REDIS_URL,
      queueName: running.queueName,
      logger: silentLogger,
      history: running.recorder,
    });
    const all = [...Object.values(events.cli), ...Object.values(events.api)];
    await running.record(all, async (recorder) => {
      for (const route of ROUTES) {
        await recordFinalFailures(recorder, all, {
          route,
          attempt: 3,
          status: 500,
          error: 'HTTP 500',
          durationMs: 2,
        });
      }
    });
  });

  afterAll(async () => {
    await routing?.close();
    connection?.disconnect();
    await running?.close();
    await receiver?.close();
  });

  /** The window of a surface's events, as both surfaces take it. */
  const windowOf = (surface: Surface) => ({
    since: new Date(WINDOWS[surface].since).toISOString(),
    until: new Date(WINDOWS[surface].until).toISOString(),
  });

  const recoverByCli = async (route: RouteName, institution?: string) => {
    const { since, until } = windowOf('cli');
    const io = captureIo(running.cliEnv());
    const args = ['history', 'recover', '--route', route, '--since', since, '--until', until];
    const code = await runCli(
      [...args, ...(institution === undefined ? [] : ['--institution', institution]), '--json'],
      io,
    );
    expect(code).toBe(0);
    return JSON.parse(io.stdout()) as Record<string, unknown>;
  };

  const call = (path: string, body?: unknown) =>
    consoleApiCall(running.url, TOKENS.operator)(path, body);

  const recoverByApi = async (route: RouteName, institution?: string) => {
    const asked = { route, ...windowOf('api'), dryRun: false };
    const started = await call('/recoveries', { ...asked, ...(institution && { institution }) });
    expect(started.status).toBe(202);
    let progress = started;
    await eventually(async () => {
      progress = await call(`/recoveries/${String(started.body.replayId)}`);
      return progress.body.state !== 'running';
    }, `the recovery of ${route} ends`);
    return progress.body;
  };

  const recover = { cli: recoverByCli, api: recoverByApi };

  it.each(['cli', 'api'] as const)(
    'by the %s: each route receives exactly the events it takes, the rest left out',
    async (surface) => {
      for (const { route, institution, sends, leftOut } of RECOVERIES) {
        const run = await recover[surface](route, institution);
        expect(run).toMatchObject({
          kind: 'recover',
          state: 'done',
          queued: sends.length,
          leftOut,
        });
        const expected = sends.map((name) => events[surface][name]?.id ?? name).sort();
        // Queued is all it sent: once those arrived, nothing else is on its way.
        await eventually(
          () => receivedOn(route, surface).length === expected.length,
          `${route}'s deliveries`,
        );
        expect(receivedOn(route, surface)).toEqual(expected);
      }
    },
  );
});
