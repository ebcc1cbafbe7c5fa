import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface StreamToOptions {
  signal?: AbortSignal | undefined;
  /** Stages between the source and the target (e.g. a record counter), in order. */
  through?: readonly Transform[];
  /**
   * Names the temporary file instead of a random suffix. A writer that reruns after a crash with
   * the same tag overwrites its own leftover (the worker passes the BullMQ job id).
   */
  temporaryTag?: string;
}

/**
 * Streams `source` into `to` without holding it in memory (`pipeline` keeps backpressure end to
 * end) and counts the bytes. To a path, it writes a temporary file beside the target, flushed to
 * disk, and renames it when the last byte is written: no reader ever sees a partial file, and a
 * failure removes the temporary file. An existing target is replaced whole (rename is atomic on one
 * file system).
 */
export async function streamTo(
  source: Readable,
  to: Writable | string,
  { signal, through = [], temporaryTag }: StreamToOptions = {},
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
  const tag = temporaryTag ?? randomBytes(6).toString('hex');
  const temporary = join(dirname(to), `.${basename(to)}.${tag}.part`);
  // `w` for a tagged name (its own leftover after a crash is overwritten), `wx` for a random one.
  const file = createWriteStream(temporary, {
    flags: temporaryTag === undefined ? 'wx' : 'w',
    flush: true,
  });
  try {
    await pipeline([...stages, file], options);
    await rename(temporary, to);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return bytes;
}
