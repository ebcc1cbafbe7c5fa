import net from 'node:net';

export interface RawSocket {
  socket: net.Socket;
  /** Everything the server sent so far. */
  received: () => string;
  /** Resolves when the server closed the connection, with the ms since connect. */
  closed: Promise<number>;
  /** Resolves once the received text contains `text`. */
  waitFor: (text: string, timeoutMs?: number) => Promise<void>;
}

/** A plain TCP client: sends exactly what a test writes, at the pace it writes it. */
export async function openRawSocket(port: number): Promise<RawSocket> {
  const socket = net.connect(port, '127.0.0.1');
  const started = Date.now();
  let text = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    for (const waiter of waiters.filter((w) => text.includes(w.text))) waiter.resolve();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => resolve(Date.now() - started)),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    socket,
    received: () => text,
    closed,
    waitFor: (wanted, timeoutMs = 5000) =>
      new Promise<void>((resolve, reject) => {
        if (text.includes(wanted)) {
          resolve();
          return;
        }
        const timer = setTimeout(() => reject(new Error(`no "${wanted}" in: ${text}`)), timeoutMs);
        waiters.push({
          text: wanted,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      }),
  };
}

/** Request head lines joined with CRLF and ended by the blank line. */
export function head(lines: string[]): string {
  return `${lines.join('\r\n')}\r\n\r\n`;
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));
