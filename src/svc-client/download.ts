import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** The download row (spec §4.3): a metadata import job's loaded records, XML or binary MARC. */
export const DOWNLOAD_ROUTE = 'GET /conf/jobs/{job_id}/instances/{instance_id}/download';

/**
 * Streams `source` into `to` without holding it in memory (`pipeline` keeps backpressure end to
 * end) and counts the bytes. To a path, it writes a temporary file beside the target and renames
 * it when the last byte is on disk: no reader ever sees a partial file, and a failure removes the
 * temporary file. An existing target is replaced whole (rename is atomic on one file system).
 */
export async function streamTo(
  source: Readable,
  to: Writable | string,
  signal?: AbortSignal,
): Promise<number> {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.byteLength;
      callback(null, chunk);
    },
  });
  const options = signal ? { signal } : {};
  if (typeof to !== 'string') {
    await pipeline(source, counter, to, options);
    return bytes;
  }
  const temporary = join(dirname(to), `.${basename(to)}.${randomBytes(6).toString('hex')}.part`);
  try {
    await pipeline(source, counter, createWriteStream(temporary, { flags: 'wx' }), options);
    await rename(temporary, to);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return bytes;
}
