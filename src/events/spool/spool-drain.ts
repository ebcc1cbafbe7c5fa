import { open } from 'node:fs/promises';
import type { Logger } from '../../logger';
import { keepUnreadable } from './keep-unreadable';
import { decodeSpoolFrames } from './spool-frame';
import type { UnreadableRange } from './spool-frame';
import { SpoolEntry } from './spool-entry';
import type { Segment } from './spool-segments';
import { KEEP_FAILED, READ_NOFOLLOW, removeSegment, sealSegment } from './spool-segments';
import { errField } from '../../err-field';

/** Hands one entry on (to the queue, or the rejected store); throws to stop the drain there. */
export type DeliverSpooled = (entry: SpoolEntry) => Promise<void>;

/** Entries handed on at once: one connection answers them in order (pipelined). */
const DRAIN_CHUNK = 100;

export interface DrainOptions {
  dir: string;
  segments: Segment[];
  /** True while the writer has a batch waiting or under way. */
  writerBusy: () => boolean;
  deliver: DeliverSpooled;
  beforeRemove: (() => Promise<void>) | undefined;
  /** A file drained and removed: its bytes leave the spool's count. */
  onRemoved: (segment: Segment) => void;
  /** Unreadable bytes kept in bad/ (svcws_spool_unreadable_bytes_total). */
  onKept: (bytes: number) => void;
  logger: Logger;
}

/**
 * Delivers the files in order, each to its end, and removes each once delivered. The last file
 * (the one appends go to) is sealed first, so appends go to a new one meanwhile; the drain ends
 * when the only file left is empty and nothing is being written. Resolves with the count delivered.
 */
export async function drainSegments(options: DrainOptions): Promise<number> {
  const { segments } = options;
  let delivered = 0;
  for (let segment = segments[0]; segment !== undefined; segment = segments[0]) {
    if (!segment.sealed) {
      if (segment.count === 0 && !options.writerBusy()) return delivered;
      await sealSegment(segment);
    }
    await segment.inFlight?.catch(() => undefined);
    const drained = await drainSegment(segment, options);
    delivered += drained.delivered;
    await options.beforeRemove?.();
    segments.shift();
    options.onRemoved(segment);
    // Its unreadable bytes are not in bad/ (a full disk): the file stays, and the next process
    // on the directory delivers its records again (the same job ids: no-ops) and keeps them then.
    if (drained.keptAside) await removeSegment(options.dir, segment);
  }
  return delivered;
}

/**
 * Delivers what is left of one sealed file, DRAIN_CHUNK entries at a time in arrival order. Bytes
 * that hold no record, and a record that is not an entry, are kept in bad/ first
 * (keep-unreadable.ts): one bad record must not hold back the others, nor be lost with its file.
 * `drained` moves on, so a drain started again does not add a chunk twice; the file's count and
 * age stay until it is removed: until `beforeRemove` (REDIS_ACK_REPLICAS' WAIT) holds, its
 * entries are still only safe on this disk.
 */
async function drainSegment(
  segment: Segment,
  options: DrainOptions,
): Promise<{ delivered: number; keptAside: boolean }> {
  const base = segment.drained;
  const bytes = await readRange(segment.path, base, segment.committed);
  const { frames, unreadable } = decodeSpoolFrames(bytes, segment.format);
  const entries = frames.map((frame) => ({ frame, entry: entryOf(frame.payload) }));
  const notEntries: UnreadableRange[] = entries
    .filter(({ entry }) => entry === undefined)
    .map(({ frame }) => ({
      offset: frame.start,
      size: frame.end - frame.start,
      reason: 'damaged',
    }));
  const keptAside = keepAside(segment, options, bytes, base, [...unreadable, ...notEntries]);
  let delivered = 0;
  for (let start = 0; start < entries.length; start += DRAIN_CHUNK) {
    const chunk = entries.slice(start, start + DRAIN_CHUNK);
    await Promise.all(
      chunk.map(({ entry }) => (entry === undefined ? Promise.resolve() : options.deliver(entry))),
    );
    const last = chunk.at(-1);
    if (last !== undefined) segment.drained = base + last.frame.end;
    delivered += chunk.filter(({ entry }) => entry !== undefined).length;
  }
  return { delivered, keptAside };
}

/** keepUnreadable, or false (said) when the copy cannot be written: the file must then stay. */
function keepAside(
  segment: Segment,
  options: DrainOptions,
  bytes: Buffer,
  base: number,
  ranges: UnreadableRange[],
): boolean {
  const { dir, logger, onKept } = options;
  try {
    keepUnreadable({ dir, segment, bytes, base, ranges, logger, onKept });
    return true;
  } catch (error) {
    logger.error({ err: errField(error), segment: segment.path }, KEEP_FAILED);
    return false;
  }
}

async function readRange(path: string, from: number, to: number): Promise<Buffer> {
  const handle = await open(path, READ_NOFOLLOW);
  try {
    const bytes = Buffer.alloc(to - from);
    let done = 0;
    while (done < bytes.length) {
      const { bytesRead } = await handle.read(bytes, done, bytes.length - done, from + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    // Shorter than committed (cut by someone else): what is missing is not read as zeros.
    return bytes.subarray(0, done);
  } finally {
    await handle.close();
  }
}

function entryOf(payload: Buffer): SpoolEntry | undefined {
  try {
    const parsed = SpoolEntry.safeParse(JSON.parse(payload.toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
