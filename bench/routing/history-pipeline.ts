import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { median } from '../ingress/median';
import { ourPipeline } from './pipelines';
import type { Pipeline, RunningPipeline } from './pipelines';

const HISTORY_KEY = 'bench-history-key-of-at-least-32-characters';
/** How often the lag poll asks PostgreSQL for its counts (the lag's resolution). */
const POLL_MS = 25;
const CATCH_UP_TIMEOUT_MS = 180_000;
const TICK_US = 10_000; // µs per clock tick at the usual USER_HZ of 100

/** What the history tables held after one phase, and how long after its last delivery. */
export interface HistoryPhase {
  /** Last delivery seen → every event and its two delivered attempts in PostgreSQL, ms. */
  readonly lagMs: number;
  readonly caughtUp: boolean;
  readonly events: number;
  readonly distinctEvents: number;
  readonly deliveredRoutes: number;
  readonly attempts: number;
  readonly expected: number;
}

/** The history pipeline's per-phase figures across rounds (paced, full), for the targets. */
export interface HistoryResults {
  readonly paced: HistoryPhase[];
  readonly full: HistoryPhase[];
}

/**
 * Ours with the history on: the same worker with DATABASE_URL (the bench's PostgreSQL,
 * setup.databaseUrl, in a schema of its own per run, dropped after; an application_name naming
 * it, so PostgreSQL's backends serving this run can be found) and
 * HISTORY_KEY, every event and attempt recorded and written by the writer as in production.
 * PostgreSQL's CPU counts as 'postgres': the backends of this run's connections
 * (pg_stat_activity by application_name), sampled while the phase runs.
 */
export function historyPipeline(
  name: string,
  script: (file: string) => string,
  results: HistoryResults,
): Pipeline {
  return {
    name,
    usesDatabase: true,
    start: async (setup) => {
      const databaseUrl = setup.databaseUrl;
      if (databaseUrl === undefined) throw new Error(`${name}: the bench started no PostgreSQL`);
      const schema = `${setup.name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`;
      const url = new URL(databaseUrl);
      url.searchParams.set('application_name', schema);
      const inner = await ourPipeline(name, script, {
        DATABASE_URL: url.toString(),
        HISTORY_KEY,
        HISTORY_SCHEMA: schema,
      }).start(setup);
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      // The worker opens and migrates its database in the background: the phases start once it
      // has, so the one-off migration is not measured as the first phase's cost.
      await untilMigrated(client, schema);
      return withHistory(inner, client, schema, results);
    },
  };
}

function withHistory(
  inner: RunningPipeline,
  client: pg.Client,
  schema: string,
  results: HistoryResults,
): RunningPipeline {
  let expected = 0;
  let phases = 0;
  return {
    ...inner,
    cpu: () => postgresProbe(client, schema),
    afterPhase: async (events, lastDeliveryAt) => {
      expected += events;
      const phase = await catchUp(client, schema, expected, lastDeliveryAt);
      (phases++ === 0 ? results.paced : results.full).push(phase);
      return [describe(phase)];
    },
    stop: async () => {
      try {
        await inner.stop();
      } finally {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
        await client.end();
      }
    },
  };
}

async function untilMigrated(client: pg.Client, schema: string): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const result = await client.query<{ events: string | null }>(
      'SELECT to_regclass($1)::text AS events',
      [`${schema}.events`],
    );
    if (result.rows[0]?.events !== null) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${schema}: the worker did not migrate its history within 60 s`);
}

function describe(phase: HistoryPhase): string {
  const rows = `${String(phase.events)} event rows (${String(phase.distinctEvents)} distinct) of ${String(phase.expected)}, ${String(phase.deliveredRoutes)} delivered route attempts of ${String(phase.expected * 2)}, ${String(phase.attempts)} attempt rows`;
  return `history: ${phase.caughtUp ? `last row in PostgreSQL ${phase.lagMs.toFixed(0)} ms after the last delivery` : `NOT caught up after ${String(CATCH_UP_TIMEOUT_MS / 1000)} s`}; ${rows}`;
}

/** Polls the tables until every event of the run and its two deliveries are there. */
async function catchUp(
  client: pg.Client,
  schema: string,
  expected: number,
  lastDeliveryAt: number,
): Promise<HistoryPhase> {
  const until = Date.now() + CATCH_UP_TIMEOUT_MS;
  let caughtUp = false;
  let reachedAt = Date.now();
  while (Date.now() < until) {
    const counts = await countRows(client, schema);
    reachedAt = Date.now();
    if (counts.distinctEvents >= expected && counts.deliveredRoutes >= expected * 2) {
      caughtUp = true;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const counts = await countRows(client, schema);
  return { ...counts, expected, caughtUp, lagMs: Math.max(0, reachedAt - lastDeliveryAt) };
}

async function countRows(
  client: pg.Client,
  schema: string,
): Promise<Pick<HistoryPhase, 'events' | 'distinctEvents' | 'deliveredRoutes' | 'attempts'>> {
  const result = await client.query<Record<string, string>>(
    `SELECT (SELECT count(*) FROM ${schema}.events) AS events,
            (SELECT count(DISTINCT (institution, event_id)) FROM ${schema}.events) AS distinct_events,
            (SELECT count(DISTINCT (event_id, route)) FROM ${schema}.attempts
              WHERE outcome = 'delivered') AS delivered_routes,
            (SELECT count(*) FROM ${schema}.attempts) AS attempts`,
  );
  const row = result.rows[0] ?? {};
  return {
    events: Number(row.events),
    distinctEvents: Number(row.distinct_events),
    deliveredRoutes: Number(row.delivered_routes),
    attempts: Number(row.attempts),
  };
}

/**
 * CPU of PostgreSQL's backends serving this run (pg_stat_activity, application_name = the
 * schema), read from /proc every 200 ms so a connection opened or closed mid-phase still counts;
 * and, for reference, of every postgres process on the machine (other users' included).
 */
function postgresProbe(
  client: pg.Client,
  schema: string,
): { since(): Promise<Map<string, number>> } {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const allBefore = allPostgresTicks();
  const sample = async (initial: boolean): Promise<void> => {
    const result = await client
      .query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
        schema,
      ])
      .catch(() => ({ rows: [] as { pid: number }[] }));
    for (const { pid } of result.rows) {
      const ticks = ticksOf(pid);
      if (ticks === undefined) continue;
      // A backend first seen mid-phase started during it: all of its time counts.
      if (!first.has(pid)) first.set(pid, initial ? ticks : 0);
      last.set(pid, ticks);
    }
  };
  let sampling = sample(true);
  const timer = setInterval(() => {
    sampling = sampling.then(() => sample(false));
  }, 200);
  return {
    since: async () => {
      clearInterval(timer);
      await sampling;
      await sample(false);
      let ticks = 0;
      for (const [pid, end] of last) ticks += end - (first.get(pid) ?? 0);
      return new Map([
        ['postgres', ticks * TICK_US],
        ['postgres (all processes)', (allPostgresTicks() - allBefore) * TICK_US],
      ]);
    },
  };
}

function ticksOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** utime + stime of every live process named postgres (one that ended meanwhile is missed). */
function allPostgresTicks(): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      ticks += ticksOf(Number(entry)) ?? 0;
    } catch {
      // Ended while the list was read.
    }
  }
  return ticks;
}

/** The history targets, from the medians of the same rounds' full-speed figures. */
export function historyTargetLines(
  offEventsPerS: number,
  onEventsPerS: number,
  cpu: {
    readonly off: { paced: number; full: number };
    readonly on: { paced: number; full: number };
  },
  results: HistoryResults,
): string[] {
  const ratio = onEventsPerS / offEventsPerS;
  const full = results.full;
  const lag = median(full.map((phase) => phase.lagMs));
  const complete = [...results.paced, ...full].every(
    (phase) =>
      phase.caughtUp &&
      phase.events === phase.expected &&
      phase.distinctEvents === phase.expected &&
      phase.deliveredRoutes === phase.expected * 2,
  );
  const verdict = ratio >= 0.9 ? 'met' : 'MISSED';
  return [
    `  (history on: 'postgres' is the CPU of the PostgreSQL backends serving the run's own connections, found in pg_stat_activity by application_name, up to the end of the history's catch-up; 'postgres (all processes)' sums every postgres process on the machine, other users' included, for reference)`,
    `  full speed, history on / off: ${(ratio * 100).toFixed(0)} % (${onEventsPerS.toFixed(0)} / ${offEventsPerS.toFixed(0)} events/s) — target ≥ 90 % of off (history), within 10 % of off (one hop): ${verdict}`,
    `  CPU per event, history on / off (path with PostgreSQL's backends): paced ${(cpu.on.paced / cpu.off.paced).toFixed(2)}× (${cpu.on.paced.toFixed(0)} / ${cpu.off.paced.toFixed(0)} µs), full speed ${(cpu.on.full / cpu.off.full).toFixed(2)}× (${cpu.on.full.toFixed(0)} / ${cpu.off.full.toFixed(0)} µs) — the events/s ratio follows the machine's load; this one less`,
    `  history lag at full speed (last delivery → last row in PostgreSQL), median: ${lag.toFixed(0)} ms; ${complete ? 'every event once and both routes delivered, in the tables, every phase' : 'rows MISSING or doubled (see the phases above)'}`,
  ];
}
