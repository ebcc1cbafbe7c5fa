import path from 'node:path';

/**
 * What a process's HTTP servers did with every connection and request, counted from inside by
 * bench/servers/http-server-tally-probe.ts (preloaded): answered over IPC (`'tally'`), or printed
 * once on stderr as a process without IPC exits. "Before stop" is before the process got SIGTERM: a
 * graceful stop closes idle keep-alive connections by design.
 */
export interface HttpServerTally {
  requests: number;
  /** Responses written out in full ('finish'). */
  answered: number;
  statuses: Record<string, number>;
  /** Responses whose connection closed before they were written out. */
  unanswered: number;
  /** Connections closed while a request on them had no answer yet, by who closed first. */
  closedWithRequestInFlight: { byServer: number; byPeer: number };
  /** Connections the server closed with nothing in flight before it was told to stop. */
  idleClosedByServerBeforeStop: number;
  /** The server's 'timeout' events (an idle keep-alive connection timed out). */
  keepAliveTimeouts: number;
  /** 'clientError' events by code (a request timeout is ERR_HTTP_REQUEST_TIMEOUT). */
  clientErrors: Record<string, number>;
}

/** Node options that load the probe from source into a child started with `--import tsx`. */
export const TALLY_PRELOAD = [
  '--import',
  path.join(__dirname, '../servers/http-server-tally-probe.ts'),
];

export const TALLY_LINE_PREFIX = 'http-server-tally ';

/** The tally a child printed as it exited (its stdout and stderr, as captured). */
export function tallyOf(output: string): HttpServerTally {
  const line = output.split('\n').find((one) => one.startsWith(TALLY_LINE_PREFIX));
  if (line === undefined) throw new Error(`no tally in the output:\n${output}`);
  return JSON.parse(line.slice(TALLY_LINE_PREFIX.length)) as HttpServerTally;
}
