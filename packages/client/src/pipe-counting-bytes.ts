import { Transform } from 'node:stream';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { openAtomicFile } from './open-atomic-file';

export interface PipeCountingBytesOptions {
  signal?: AbortSignal | undefined;
  /** Stages between the source and the target (e.g. a record counter), in order. */
  through?: readonly Transform[];
  /**
   * Added to the temporary file's name (the worker passes the BullMQ job id) so a person can tell
   * whose leftover it is; the name always ends in a random suffix of its own.
   */
  temporaryTag?: string;
}

/**
 * Streams `source` into `to` without holding it in memory (`pipeline` keeps backpressure end to
 * end) and counts the bytes. To a path, it writes through openAtomicFile: a temporary file of its
 * own beside the target, renamed when the last byte is written; no reader ever sees a partial file,
 * two writers never share one, and a failure removes it. An existing target is replaced whole.
 */
export async function pipeCountingBytes(
  source: Readable,
  to: Writable | string,
  { signal, through = [], temporaryTag }: PipeCountingBytesOptions = {},
): Promise<number> {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.byteLength;
      callback(null, chunk);
    },
  });
  const options = signal ? { signal } : {};
  const stages: (Readable | Writable)[] = [source, counter, ...through];
  if (typeof to !== 'string') {
    await pipeline([...stages, to], options);
    return bytes;
  }
  const file = openAtomicFile(to, temporaryTag);
  try {
    await pipeline([...stages, file.stream], options);
    await file.commit();
  } catch (error) {
    await file.discard();
    throw error;
  }
  return bytes;
}
