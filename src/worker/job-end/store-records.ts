import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Transform } from 'node:stream';
import type { SvcClient } from '@svcws/client';
import type { DownloadParams } from '@svcws/client';
import { pipeCountingBytes } from '@svcws/client';
import { createMarcRecordCounter } from './count-marc-records';
import type { DownloadFormat } from './records-path';
import { safeSegment } from './records-path';

export interface StoreRecordsOptions {
  readonly client: Pick<SvcClient, 'downloadStream'>;
  readonly params: DownloadParams & { download_format: DownloadFormat };
  /** The final path (records-path.ts). */
  readonly file: string;
  /**
   * Goes into the temporary file's name (the BullMQ job id), beside a random suffix: every run,
   * also a second run of the same job after a lost lock, writes a file of its own. What a killed
   * run leaves is swept at start-up (sweepStaleTemporaryFiles).
   */
  readonly tempTag: string;
  /** A body that sends nothing for this long is abandoned (the client's timeout ends at the headers). */
  readonly idleTimeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

export type StoreRecordsResult =
  | { readonly stored: true; readonly records: number; readonly bytes: number }
  /** The file was already complete: nothing downloaded, no API call made. */
  | { readonly stored: false; readonly reason: 'already stored' };

/** No data for `idleTimeoutMs` in the middle of a body. */
class DownloadStalledError extends Error {
  constructor(idleTimeoutMs: number) {
    super(`download stalled: no data for ${String(idleTimeoutMs)} ms`);
    this.name = 'DownloadStalledError';
  }
}

/**
 * Streams one download into its file and counts the MARC records on the way (one pass, memory
 * flat). The bytes go to `.<name>.<tag>.<random>.part` beside the target, flushed to disk and
 * renamed when the last byte is written and the records counted: a reader sees the whole file or
 * none, and a failure removes the temporary file. An existing target means an earlier run finished: it is
 * kept and no call is made, so a retry or a redelivery never downloads twice.
 */
export async function storeRecords(options: StoreRecordsOptions): Promise<StoreRecordsResult> {
  const { file, params } = options;
  if (await exists(file)) return { stored: false, reason: 'already stored' };
  await mkdir(dirname(file), { recursive: true });

  const counter = createMarcRecordCounter(params.download_format);
  let records = 0;
  let idle: NodeJS.Timeout | undefined;
  const counting = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      idle?.refresh();
      try {
        counter.write(chunk);
      } catch (error) {
        callback(asError(error));
        return;
      }
      callback(null, chunk);
    },
    flush(callback) {
      try {
        records = counter.end();
        callback();
      } catch (error) {
        callback(asError(error));
      }
    },
  });

  try {
    const { body } = await options.client.downloadStream(params, { signal: options.signal });
    idle = setTimeout(() => {
      counting.destroy(new DownloadStalledError(options.idleTimeoutMs));
    }, options.idleTimeoutMs);
    const bytes = await pipeCountingBytes(body, file, {
      signal: options.signal,
      through: [counting],
      temporaryTag: safeSegment(options.tempTag),
    });
    return { stored: true, records, bytes };
  } finally {
    clearTimeout(idle);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
