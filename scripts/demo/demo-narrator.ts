/** What the worker's summary line says about one stored instance (worker/job-end/create-job-end-handler.ts). */
export interface StoredSummary {
  eventId: string;
  jobId: string;
  jobName: string;
  instanceId: string;
  status: string;
  records: number;
  bytes: number;
  file: string;
  durationMs: number;
  apiCalls: number;
}

export interface DemoNarrator {
  /** Feed every pino line of the sandbox, listener and worker here. */
  onLine: (line: Record<string, unknown>) => void;
  /** Resolves with the summary once the instance's records are stored; rejects when it failed. */
  storedFor: (instanceId: string) => Promise<StoredSummary>;
  /** Resolves with the route's name once the event was delivered on a route (docs/routing.md). */
  routedFor: (eventId: string) => Promise<string>;
}

type Say = (mark: string, text: string) => void;
type Line = Record<string, unknown>;

/** What the narrator remembers between lines: who waits for which instance or event. */
interface NarratorState {
  readonly say: Say;
  readonly waiting: Map<
    string,
    { resolve: (summary: StoredSummary) => void; reject: (error: Error) => void }
  >;
  readonly routed: Map<string, (route: string) => void>;
  /** A delivery often lands before the records are stored: remembered for routedFor. */
  readonly routedTo: Map<string, string>;
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number => (typeof value === 'number' ? value : 0);

/**
 * Turns the log lines of the three parts into short human lines: the webhook arriving, verified,
 * queued, the instance fetched, the records stored. Lines it has nothing to say about stay in
 * the log file only.
 */
export function createDemoNarrator(say: Say): DemoNarrator {
  const state: NarratorState = { say, waiting: new Map(), routed: new Map(), routedTo: new Map() };
  return {
    onLine: (line) => {
      const msg = str(line.msg);
      if (line.name === 'web' && msg === 'delivery') narrateDelivery(line, say);
      else if (line.name === 'worker') WORKER_LINES.get(msg)?.(line, state);
    },
    routedFor: (eventId) =>
      new Promise<string>((resolve) => {
        const route = state.routedTo.get(eventId);
        if (route !== undefined) resolve(route);
        else state.routed.set(eventId, resolve);
      }),
    storedFor: (instanceId) =>
      new Promise<StoredSummary>((resolve, reject) => {
        state.waiting.set(instanceId, { resolve, reject });
      }),
  };
}

/** The listener's delivery line: arrived, verified and queued, or refused. */
function narrateDelivery(line: Line, say: Say): void {
  const outcome = str(line.outcome);
  const size = `${str(line.format) || '?'}, ${kb(num(line.bytes))}`;
  if (outcome !== 'queued' && outcome !== 'duplicate') {
    say('✗', `webhook refused: ${outcome} (${String(line.httpStatus)}) ${str(line.reason)}`);
    return;
  }
  say('✓', `webhook arrived: ${str(line.action)} event ${str(line.eventId)} (${size})`);
  say(
    '✓',
    `signature verified, event ${outcome === 'queued' ? 'queued' : 'already queued (a redelivery)'} as ${str(line.queueJobId)} — answered ${String(line.httpStatus)} in ${ms(num(line.durationMs))}`,
  );
}

function narrateRouted(line: Line, state: NarratorState): void {
  if (typeof line.route !== 'string') return;
  state.say(
    '✓',
    `routed: event ${str(line.eventId)} → route ${line.route} (${str(line.target)}), confirmed in ${ms(num(line.durationMs))}`,
  );
  const eventId = str(line.eventId);
  state.routedTo.set(eventId, line.route);
  state.routed.get(eventId)?.(line.route);
}

function narrateFetched(line: Line, state: NarratorState): void {
  const counters = Object.entries((line.counters ?? {}) as Record<string, unknown>)
    .map(([type, value]) => `${type} ${String(value)}`)
    .join(', ');
  state.say(
    '✓',
    `instance ${str(line.instanceId)} fetched: ${str(line.platformJobId)} "${str(line.jobName)}" ${str(line.jobStatus)}${counters === '' ? '' : ` (${counters})`}`,
  );
}

function narrateStored(line: Line, state: NarratorState): void {
  const instanceId = str(line.instanceId);
  const summary: StoredSummary = {
    eventId: str(line.eventId),
    jobId: str(line.platformJobId),
    jobName: str(line.jobName),
    instanceId,
    status: str(line.jobStatus),
    records: num(line.records),
    bytes: num(line.bytes),
    file: str(line.file),
    durationMs: num(line.durationMs),
    apiCalls: num(line.apiCalls),
  };
  state.say(
    '✓',
    line.msg === 'job_end: records stored'
      ? `records stored: ${String(summary.records)} records, ${kb(summary.bytes)} → ${summary.file}`
      : `records already stored for instance ${instanceId}: not downloaded again`,
  );
  state.waiting.get(instanceId)?.resolve(summary);
}

/** The worker's lines the demo narrates, by message; any other stays in the log file. */
const WORKER_LINES: ReadonlyMap<string, (line: Line, state: NarratorState) => void> = new Map(
  Object.entries({
    delivered: narrateRouted,
    'job instance fetched': narrateFetched,
    'job_end: records stored': narrateStored,
    'job_end: records already stored': narrateStored,
    'job_end: nothing to download': (line, { say, waiting }) => {
      const instanceId = str(line.instanceId);
      say('•', `instance ${instanceId}: nothing to download (${str(line.reason)})`);
      waiting.get(instanceId)?.reject(new Error(`nothing to download: ${str(line.reason)}`));
    },
    'no handler for this action: completed without work': (line, { say }) =>
      say('•', `event ${str(line.eventId)} (${str(line.action)}): no handler for it, completed`),
    'invalid payload: failed without retry': (line, { say }) =>
      say('✗', `event ${str(line.eventId)}: invalid payload (${str(line.reason)})`),
    'event failed: will be retried': (line, { say }) =>
      say('!', `attempt ${String(line.attempt)} failed, BullMQ will retry: ${str(line.reason)}`),
    'event failed: not retried': (line, { say, waiting }) => {
      say('✗', `event ${str(line.eventId)} failed for good: ${str(line.reason)}`);
      for (const pending of waiting.values()) pending.reject(new Error(str(line.reason)));
    },
  } satisfies Record<string, (line: Line, state: NarratorState) => void>),
);

export function kb(bytes: number): string {
  return bytes < 1024 ? `${String(bytes)} B` : `${(bytes / 1024).toFixed(1)} kB`;
}

export function ms(value: number): string {
  return value < 1000
    ? `${value.toFixed(value < 10 ? 1 : 0)} ms`
    : `${(value / 1000).toFixed(2)} s`;
}
