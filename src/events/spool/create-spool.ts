import type { Logger } from '../../logger';
import { prepareSpoolDir } from './spool-dir';
import { acquireSpoolLock } from './spool-lock';
import { encodeSpoolFrame } from './spool-frame';
import type { SpoolEntry } from './spool-entry';
import { SpoolError } from './spool-error';
import { drainSegments } from './spool-drain';
import type { DeliverSpooled } from './spool-drain';
import { readSegments, sealSegment } from './spool-segments';
import type { Segment } from './spool-segments';
import { createSpoolWriter } from './spool-writer';
import type { SpoolFileWrite } from './spool-writer';

export type { DeliverSpooled } from './spool-drain';

export interface SpoolStats {
  /** Entries not yet moved into the queue. */
  depth: number;
  /** Bytes of the spool's files on disk. */
  bytes: number;
  /** Age of the oldest entry not yet moved, in seconds; 0 when empty. */
  oldestAgeSeconds: number;
  /** Bytes found holding no readable record and kept in bad/, since this process started. */
  unreadableBytes: number;
}

export interface Spool {
  readonly dir: string;
  /** Resolves once the entry is on disk (written and fsync'd); rejects with a SpoolError. */
  append: (entry: SpoolEntry) => Promise<void>;
  /** Nothing spooled and nothing being written: deliveries may go to the queue directly. */
  isEmpty: () => boolean;
  /** Below SPOOL_MAX_BYTES: the listener can still answer 200 without the queue. */
  hasRoom: () => boolean;
  /** False since a write failed, until one succeeds (or `probe` does). */
  writable: () => boolean;
  /** Resolves once the disk takes a small write again; rejects with a SpoolError. */
  probe: () => Promise<void>;
  stats: () => SpoolStats;
  /**
   * Hands every entry to `deliver` in arrival order, chunk by chunk, and removes each file once
   * all of it is delivered (`beforeRemove` first: REDIS_ACK_REPLICAS' WAIT). Stops at the first
   * throw; the next drain starts again at the chunk that failed. Resolves with the count delivered.
   */
  drain: (deliver: DeliverSpooled, beforeRemove?: () => Promise<void>) => Promise<number>;
  close: () => Promise<void>;
}

export interface SpoolOptions {
  dir: string;
  /** SPOOL_MAX_BYTES: past it a delivery the queue did not take is answered 503 `spool_full`. */
  maxBytes: number;
  logger: Logger;
  /** A file takes appends until it is this large (or the drain takes it), then the next begins. */
  segmentBytes?: number;
  now?: () => number;
  /** The write to the spool's files (spool-writer.ts): FileHandle.write unless given. */
  write?: SpoolFileWrite | undefined;
}

/**
 * The listener's disk spool: files of framed records (src/events/spool/spool-frame.ts) in one
 * directory (mode 0700, spool-dir.ts) held by a lock, appended to by a group-committing writer
 * (spool-writer.ts) and emptied in order by the drain (spool-drain.ts). Opening takes the lock,
 * reads what a previous process left (bytes that hold no record are kept in bad/ and said:
 * keep-unreadable.ts) and never appends to an old file.
 */
export function openSpool(options: SpoolOptions): Spool {
  const { dir, maxBytes, logger, segmentBytes = 8 * 1024 * 1024, now = Date.now } = options;
  prepareSpoolDir(dir);
  const lock = acquireSpoolLock(dir);
  let unreadableBytes = 0;
  const onKept = (bytes: number): void => {
    unreadableBytes += bytes;
  };
  let segments: Segment[];
  try {
    segments = readSegments({ dir, logger, onKept });
  } catch (error) {
    lock.release();
    throw error;
  }
  const writer = createSpoolWriter({ dir, segments, segmentBytes, write: options.write });
  // Bytes on disk plus those being written: what SPOOL_MAX_BYTES bounds.
  let diskBytes = segments.reduce((sum, one) => sum + one.committed, 0);
  let closed = false;
  const append = async (entry: SpoolEntry): Promise<void> => {
    if (closed) throw new SpoolError('spool_unwritable', 'the spool is closed');
    const frame = encodeSpoolFrame(Buffer.from(JSON.stringify(entry)));
    if (diskBytes + frame.length > maxBytes) {
      throw new SpoolError('spool_full', `the spool is full (SPOOL_MAX_BYTES ${String(maxBytes)})`);
    }
    diskBytes += frame.length;
    try {
      await writer.write(frame, entry.spooledAt);
    } catch (error) {
      diskBytes -= frame.length;
      throw error;
    }
  };
  return {
    dir,
    append,
    isEmpty: () => !writer.busy() && segments.every((one) => one.count === 0),
    hasRoom: () => diskBytes < maxBytes,
    writable: writer.writable,
    probe: writer.probe,
    stats: () => ({ ...statsOf(segments, now()), unreadableBytes }),
    drain: (deliver, beforeRemove) =>
      drainSegments({
        dir,
        segments,
        writerBusy: writer.busy,
        deliver,
        beforeRemove,
        onRemoved: (segment) => (diskBytes -= segment.committed),
        onKept,
        logger,
      }),
    close: async () => {
      closed = true;
      await writer.idle();
      for (const segment of segments) await sealSegment(segment);
      lock.release();
    },
  };
}

function statsOf(segments: readonly Segment[], now: number): Omit<SpoolStats, 'unreadableBytes'> {
  let depth = 0;
  let bytes = 0;
  let oldestAt: number | undefined;
  for (const segment of segments) {
    depth += segment.count;
    bytes += segment.committed;
    if (segment.count > 0) oldestAt ??= segment.oldestAt;
  }
  const oldestAgeSeconds = oldestAt === undefined ? 0 : Math.max(0, (now - oldestAt) / 1000);
  return { depth, bytes, oldestAgeSeconds };
}
