import { writeSync } from 'node:fs';
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { TALLY_LINE_PREFIX } from '../ingress/http-server-tally';
import type { HttpServerTally } from '../ingress/http-server-tally';

/**
 * Preloaded into a server (`--require` its compiled file, as the keep-alive bench does, or
 * `--import tsx --import` its source, TALLY_PRELOAD, as the keep-alive test does): counts what
 * every HTTP server of the process does with its connections and requests, without changing what
 * they do. Answers `'tally'` over IPC, or prints the tally on stderr as the process exits. The
 * server is not changed to be measured: the events are read where Node emits them.
 */
const tally: HttpServerTally = {
  requests: 0,
  answered: 0,
  statuses: {},
  unanswered: 0,
  closedWithRequestInFlight: { byServer: 0, byPeer: 0 },
  idleClosedByServerBeforeStop: 0,
  keepAliveTimeouts: 0,
  clientErrors: {},
};
/** Errors that mean the peer went away (a reset, a write to a closed connection). */
const PEER_ERRORS = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);
let stopping = false;

interface Connection {
  started: number;
  finished: number;
  firstCloser?: 'server' | 'peer';
}
const connections = new WeakMap<Socket, Connection>();

const bump = (counts: Record<string, number>, key: string): void => {
  counts[key] = (counts[key] ?? 0) + 1;
};

function onConnection(socket: Socket): void {
  const connection: Connection = { started: 0, finished: 0 };
  connections.set(socket, connection);
  const closer = (who: 'server' | 'peer'): void => {
    connection.firstCloser ??= who;
  };
  const destroy = socket.destroy.bind(socket);
  socket.destroy = (error?: Error): Socket => {
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
    closer(error !== undefined && PEER_ERRORS.has(code) ? 'peer' : 'server');
    return destroy(error);
  };
  const end = socket.end.bind(socket) as (...args: unknown[]) => Socket;
  socket.end = ((...args: unknown[]) => {
    closer('server');
    return end(...args);
  }) as Socket['end'];
  socket.on('end', () => closer('peer'));
  socket.on('close', () => {
    const by = connection.firstCloser === 'peer' ? 'byPeer' : 'byServer';
    if (connection.started > connection.finished) tally.closedWithRequestInFlight[by] += 1;
    else if (by === 'byServer' && !stopping) tally.idleClosedByServerBeforeStop += 1;
  });
}

function onRequest(req: IncomingMessage, res: ServerResponse): void {
  tally.requests += 1;
  const connection = connections.get(req.socket);
  if (connection) connection.started += 1;
  let finished = false;
  res.on('finish', () => {
    finished = true;
    tally.answered += 1;
    bump(tally.statuses, String(res.statusCode));
    if (connection) connection.finished += 1;
  });
  res.on('close', () => {
    if (!finished) tally.unanswered += 1;
  });
}

const emit = http.Server.prototype.emit as (name: string | symbol, ...args: unknown[]) => boolean;
http.Server.prototype.emit = function tallied(
  this: http.Server,
  name: string | symbol,
  ...args: unknown[]
): boolean {
  if (name === 'connection') onConnection(args[0] as Socket);
  else if (name === 'request') onRequest(args[0] as IncomingMessage, args[1] as ServerResponse);
  else if (name === 'timeout') tally.keepAliveTimeouts += 1;
  else if (name === 'clientError') {
    const error = args[0] as NodeJS.ErrnoException;
    bump(tally.clientErrors, error.code ?? error.message);
  }
  return emit.call(this, name, ...args);
};

process.on('message', (message: unknown) => {
  if (message === 'tally') process.send?.({ question: 'tally', tally });
});
process.on('SIGTERM', () => {
  stopping = true;
});
// Without an IPC channel (a test's child), the tally is read from the process's output.
process.on('exit', () => {
  if (process.send === undefined) writeSync(2, `\n${TALLY_LINE_PREFIX}${JSON.stringify(tally)}\n`);
});
