import { mkdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Logger } from '../../logger';
import { acquireSpoolLock } from './spool-lock';
import { decodeSpoolFrames, encodeSpoolFrame } from './spool-frame';
import { SpoolEntry } from './spool-entry';
import { SpoolError } from './spool-error';
import { fsyncDir, readSegments, removeSegment, segmentPath } from './spool-segments';
import type { Segment } from './spool-segments';

export interface SpoolStats {
  /** Entries not yet moved into the queue. */
  depth: number;
  /** Bytes of the spool's files on disk. */
  bytes: number;
  /** Age of the oldest entry not yet moved, in seconds; 0 when empty. */
  oldestAgeSeconds: number;
}

/** Hands one entry on (to the queue, or the rejected store); throws to stop the drain there. */
export type DeliverSpooled = (entry: SpoolEntry) => Promise<void>;

export interface Spool {
  readonly dir: string;
  /** Resolves once the entry is on disk (written and fsync'd); rejects with a SpoolError. */
  append: (entry: SpoolEntry) => Promise<void>;
  /** Nothing spooled and nothing being written: deliveries may go to the queue directly. */
  isEmpty: () => boolean;
  /** Below SPOOL_MAX_BYTES: the listener can still answer 200 without the queue. */
  hasRoom: () => boolean;
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
}

interface Pending {
  frame: Buffer;
  spooledAt: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** Entries handed to the queue at once: one connection answers them in order (pipelined). */
const DRAIN_CHUNK = 100;

/**
 * The listener's disk spool: files of framed records (src/events/spool/spool-frame.ts) in one
 * directory held by a lock. Appends are group-committed: the deliveries that arrive while one
 * write and fsync are under way share the next one. The drain reads whole files in order, so a
 * file is only ever appended to by the writer and removed once drained. Opening takes the lock,
 * reads what a previous process left (a torn last record is logged and cut off) and never
 * appends to an old file.
 */
export function openSpool(options: SpoolOptions): Spool {
  const { dir, maxBytes, logger, segmentBytes = 8 * 1024 * 1024, now = Date.now } = options;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = acquireSpoolLock(dir);
  const segments: Segment[] = readSegments(dir, logger);
  const state = { diskBytes: segments.reduce((sum, one) => sum + one.committed, 0), closed: false };
  let pending: Pending[] = [];
  let writing: Promise<void> | undefined;

  const writableSegment = async (): Promise<Segment> => {
    const last = segments.at(-1);
    if (last?.handle !== undefined && !last.sealed && last.committed < segmentBytes) return last;
    if (last !== undefined && !last.sealed) await seal(last);
    const seq = (last?.seq ?? 0) + 1;
    const path = segmentPath(dir, seq);
    const handle = await open(path, 'a', 0o600);
    // The new file's name must survive a crash as well as its records.
    fsyncDir(dir);
    const segment: Segment = {
      seq,
      path,
      committed: 0,
      drained: 0,
      count: 0,
      sealed: false,
      handle,
    };
    segments.push(segment);
    return segment;
  };

  const writeBatch = async (batch: Pending[]): Promise<void> => {
    const bytes = Buffer.concat(batch.map((one) => one.frame));
    let segment: Segment | undefined;
    try {
      segment = await writableSegment();
      const written = writeAndSync(segment, bytes);
      segment.inFlight = written;
      await written;
      segment.committed += bytes.length;
      segment.count += batch.length;
      segment.oldestAt ??= batch[0]?.spooledAt;
      delete segment.inFlight;
      // The drain sealed it while this write was under way.
      if (segment.sealed) await seal(segment);
      for (const one of batch) one.resolve();
    } catch (error) {
      state.diskBytes -= bytes.length;
      // What this write left in the file lies past `committed`: the drain never reads it, and
      // nothing is appended after it.
      if (segment !== undefined) await seal(segment).catch(() => undefined);
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      const failure = new SpoolError(
        'spool_unwritable',
        `the spool could not be written (${code})`,
        {
          cause: error,
        },
      );
      for (const one of batch) one.reject(failure);
    }
  };

  const flush = async (): Promise<void> => {
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      await writeBatch(batch);
    }
    writing = undefined;
  };

  const append = (entry: SpoolEntry): Promise<void> => {
    if (state.closed) {
      return Promise.reject(new SpoolError('spool_unwritable', 'the spool is closed'));
    }
    const frame = encodeSpoolFrame(Buffer.from(JSON.stringify(entry)));
    if (state.diskBytes + frame.length > maxBytes) {
      return Promise.reject(
        new SpoolError('spool_full', `the spool is full (SPOOL_MAX_BYTES ${String(maxBytes)})`),
      );
    }
    state.diskBytes += frame.length;
    return new Promise<void>((resolve, reject) => {
      pending.push({ frame, spooledAt: entry.spooledAt, resolve, reject });
      writing ??= flush();
    });
  };

  const drain = async (deliver: DeliverSpooled, beforeRemove?: () => Promise<void>) => {
    let delivered = 0;
    for (let segment = segments[0]; segment !== undefined; segment = segments[0]) {
      if (!segment.sealed) {
        if (segment.count === 0 && writing === undefined) return delivered;
        // Appends from now on go to a new file; this one is the drain's.
        await seal(segment);
      }
      await segment.inFlight?.catch(() => undefined);
      delivered += await drainSegment(segment, deliver, logger);
      await beforeRemove?.();
      state.diskBytes -= segment.committed;
      segments.shift();
      await removeSegment(dir, segment);
    }
    return delivered;
  };

  return {
    dir,
    append,
    isEmpty: () => writing === undefined && segments.every((one) => one.count === 0),
    hasRoom: () => state.diskBytes < maxBytes,
    stats: () => statsOf(segments, now()),
    drain,
    close: async () => {
      state.closed = true;
      await writing;
      for (const segment of segments) await seal(segment);
      lock.release();
    },
  };
}

/** No more appends to this file; its handle is closed (a write under way finishes first). */
async function seal(segment: Segment): Promise<void> {
  segment.sealed = true;
  const { handle } = segment;
  if (handle === undefined || segment.inFlight !== undefined) return;
  delete segment.handle;
  await handle.close();
}

/** One batch's bytes appended to the file and fsync'd: only then is any of it answered 200. */
async function writeAndSync(segment: Segment, bytes: Buffer): Promise<void> {
  if (segment.handle === undefined) throw new Error('spool file is closed');
  await segment.handle.write(bytes, 0, bytes.length, null);
  await segment.handle.datasync();
}

/**
 * Delivers what is left of one sealed file, DRAIN_CHUNK entries at a time in arrival order. A
 * record whose checksum fails, or that is not an entry, is skipped with a log line: one bad
 * record must not hold back the others.
 */
async function drainSegment(
  segment: Segment,
  deliver: DeliverSpooled,
  logger: Logger,
): Promise<number> {
  const handle = await open(segment.path, 'r');
  let bytes: Buffer;
  try {
    bytes = Buffer.alloc(segment.committed - segment.drained);
    await handle.read(bytes, 0, bytes.length, segment.drained);
  } finally {
    await handle.close();
  }
  const { frames, bad } = decodeSpoolFrames(bytes);
  for (const one of bad) {
    const offset = segment.drained + one.offset;
    logger.warn(
      { segment: segment.path, offset, reason: one.reason },
      'spool: unreadable record skipped',
    );
  }
  const entries = frames.map((frame) => ({ frame, entry: entryOf(frame.payload) }));
  let delivered = 0;
  const base = segment.drained;
  for (let start = 0; start < entries.length; start += DRAIN_CHUNK) {
    const chunk = entries.slice(start, start + DRAIN_CHUNK);
    await Promise.all(
      chunk.map(({ entry }) => (entry === undefined ? Promise.resolve() : deliver(entry))),
    );
    const last = chunk.at(-1);
    if (last !== undefined) segment.drained = base + last.frame.end;
    segment.count = Math.max(0, segment.count - chunk.length);
    segment.oldestAt = entries[start + DRAIN_CHUNK]?.entry?.spooledAt;
    delivered += chunk.filter(({ entry }) => entry !== undefined).length;
    for (const { frame, entry } of chunk) {
      if (entry === undefined) {
        logger.warn(
          { segment: segment.path, offset: base + frame.start },
          'spool: unreadable record skipped',
        );
      }
    }
  }
  segment.count = 0;
  return delivered;
}

function entryOf(payload: Buffer): SpoolEntry | undefined {
  try {
    const parsed = SpoolEntry.safeParse(JSON.parse(payload.toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function statsOf(segments: readonly Segment[], now: number): SpoolStats {
  let depth = 0;
  let bytes = 0;
  let oldestAt: number | undefined;
  for (const segment of segments) {
    depth += segment.count;
    bytes += segment.committed;
    if (segment.count > 0) oldestAt ??= segment.oldestAt;
  }
  return {
    depth,
    bytes,
    oldestAgeSeconds: oldestAt === undefined ? 0 : Math.max(0, (now - oldestAt) / 1000),
  };
}
