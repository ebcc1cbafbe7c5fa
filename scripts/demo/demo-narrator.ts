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

/**
 * Turns the log lines of the three parts into short human lines: the webhook arriving, verified,
 * queued, the instance fetched, the records stored. Lines it has nothing to say about stay in
 * the log file only.
 */
export function createDemoNarrator(say: Say): DemoNarrator {
  const waiting = new Map<
    string,
    { resolve: (summary: StoredSummary) => void; reject: (error: Error) => void }
  >();
  const routed = new Map<string, (route: string) => void>();
  // A delivery often lands before the records are stored: remember it for routedFor.
  const routedTo = new Map<string, string>();
  const str = (value: unknown): string => (typeof value === 'string' ? value : '');
  const num = (value: unknown): number => (typeof value === 'number' ? value : 0);

  const onLine = (line: Record<string, unknown>): void => {
    const msg = str(line.msg);
    if (line.name === 'web' && msg === 'delivery') {
      const outcome = str(line.outcome);
      const size = `${str(line.format) || '?'}, ${kb(num(line.bytes))}`;
      if (outcome === 'queued' || outcome === 'duplicate') {
        say('✓', `webhook arrived: ${str(line.action)} event ${str(line.eventId)} (${size})`);
        say(
          '✓',
          `signature verified, event ${outcome === 'queued' ? 'queued' : 'already queued (a redelivery)'} as ${str(line.jobId)} — answered ${String(line.status)} in ${ms(num(line.durationMs))}`,
        );
      } else {
        say('✗', `webhook refused: ${outcome} (${String(line.status)}) ${str(line.reason)}`);
      }
      return;
    }
    if (line.name !== 'worker') return;
    if (msg === 'delivered' && typeof line.route === 'string') {
      say(
        '✓',
        `routed: event ${str(line.eventId)} → route ${line.route} (${str(line.target)}), confirmed in ${ms(num(line.durationMs))}`,
      );
      const eventId = str(line.eventId);
      routedTo.set(eventId, line.route);
      routed.get(eventId)?.(line.route);
      return;
    }
    const instanceId = str(line.instanceId);
    switch (msg) {
      case 'job instance fetched': {
        const counters = Object.entries((line.counters ?? {}) as Record<string, unknown>)
          .map(([type, value]) => `${type} ${String(value)}`)
          .join(', ');
        say(
          '✓',
          `instance ${instanceId} fetched: ${str(line.jobId)} "${str(line.jobName)}" ${str(line.status)}${counters === '' ? '' : ` (${counters})`}`,
        );
        return;
      }
      case 'job_end: records stored':
      case 'job_end: records already stored': {
        const summary: StoredSummary = {
          eventId: str(line.eventId),
          jobId: str(line.jobId),
          jobName: str(line.jobName),
          instanceId,
          status: str(line.status),
          records: num(line.records),
          bytes: num(line.bytes),
          file: str(line.file),
          durationMs: num(line.durationMs),
          apiCalls: num(line.apiCalls),
        };
        say(
          '✓',
          msg === 'job_end: records stored'
            ? `records stored: ${String(summary.records)} records, ${kb(summary.bytes)} → ${summary.file}`
            : `records already stored for instance ${instanceId}: not downloaded again`,
        );
        waiting.get(instanceId)?.resolve(summary);
        return;
      }
      case 'job_end: nothing to download':
        say('•', `instance ${instanceId}: nothing to download (${str(line.reason)})`);
        waiting.get(instanceId)?.reject(new Error(`nothing to download: ${str(line.reason)}`));
        return;
      case 'no handler for this action: completed without work':
        say('•', `event ${str(line.eventId)} (${str(line.action)}): no handler for it, completed`);
        return;
      case 'invalid payload: failed without retry':
        say('✗', `event ${str(line.eventId)}: invalid payload (${str(line.reason)})`);
        return;
      case 'event failed: will be retried':
        say('!', `attempt ${String(line.attempt)} failed, BullMQ will retry: ${str(line.reason)}`);
        return;
      case 'event failed: not retried':
        say('✗', `event ${str(line.eventId)} failed for good: ${str(line.reason)}`);
        for (const pending of waiting.values()) pending.reject(new Error(str(line.reason)));
        return;
      default:
        return;
    }
  };

  return {
    onLine,
    routedFor: (eventId) =>
      new Promise<string>((resolve) => {
        const route = routedTo.get(eventId);
        if (route !== undefined) resolve(route);
        else routed.set(eventId, resolve);
      }),
    storedFor: (instanceId) =>
      new Promise<StoredSummary>((resolve, reject) => {
        waiting.set(instanceId, { resolve, reject });
      }),
  };
}

export function kb(bytes: number): string {
  return bytes < 1024 ? `${String(bytes)} B` : `${(bytes / 1024).toFixed(1)} kB`;
}

export function ms(value: number): string {
  return value < 1000
    ? `${value.toFixed(value < 10 ? 1 : 0)} ms`
    : `${(value / 1000).toFixed(2)} s`;
}
