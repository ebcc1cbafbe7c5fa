import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';

export interface LogTee {
  /** The pino destination: every line goes to the file, parsed lines to `onLine`. */
  stream: Writable;
  close: () => Promise<void>;
}

/** pino JSON lines into a file, and each one, parsed, to the demo's narrator. */
export function logTee(file: string, onLine: (line: Record<string, unknown>) => void): LogTee {
  const out = createWriteStream(file, { flags: 'a' });
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const text = chunk.toString('utf8');
      out.write(text);
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        try {
          onLine(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // not a JSON line: the file keeps it, the narrator has nothing to say about it
        }
      }
      callback();
    },
  });
  return {
    stream,
    close: () => new Promise<void>((resolve) => out.end(() => resolve())),
  };
}
