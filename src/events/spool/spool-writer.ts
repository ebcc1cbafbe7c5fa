import { open } from 'node:fs/promises';
import { SpoolError } from './spool-error';
import { fsyncDir, sealSegment, segmentPath } from './spool-segments';
import type { Segment } from './spool-segments';

export interface SpoolWriter {
  /** Appends one frame; resolves once the batch it went in is written and fsync'd. */
  write: (frame: Buffer, spooledAt: number) => Promise<void>;
  /** A batch is waiting or being written. */
  busy: () => boolean;
  /** Resolves once nothing is waiting or being written. */
  idle: () => Promise<void>;
}

interface Pending {
  frame: Buffer;
  spooledAt: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

interface WriterState {
  dir: string;
  segments: Segment[];
  segmentBytes: number;
}

/**
 * The spool's group commit: frames that arrive while one write and fsync are under way wait and
 * go together in the next, so a burst costs one fsync per batch, not one per delivery. Appends go
 * to the last file unless it is sealed (the drain took it) or full; then a new file begins.
 */
export function createSpoolWriter(state: WriterState): SpoolWriter {
  let pending: Pending[] = [];
  let writing: Promise<void> | undefined;
  const flush = async (): Promise<void> => {
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      await writeBatch(state, batch);
    }
    writing = undefined;
  };
  return {
    write: (frame, spooledAt) =>
      new Promise<void>((resolve, reject) => {
        pending.push({ frame, spooledAt, resolve, reject });
        writing ??= flush();
      }),
    busy: () => writing !== undefined,
    idle: async () => {
      await writing;
    },
  };
}

async function writeBatch(state: WriterState, batch: Pending[]): Promise<void> {
  const bytes = Buffer.concat(batch.map((one) => one.frame));
  let segment: Segment | undefined;
  try {
    segment = await writableSegment(state);
    const written = writeAndSync(segment, bytes);
    segment.inFlight = written;
    await written;
    segment.committed += bytes.length;
    segment.count += batch.length;
    segment.oldestAt ??= batch[0]?.spooledAt;
    delete segment.inFlight;
    // The drain sealed it while this write was under way.
    if (segment.sealed) await sealSegment(segment);
    for (const one of batch) one.resolve();
  } catch (error) {
    // What this write left in the file lies past `committed`: the drain never reads it, and
    // nothing is appended after it.
    if (segment !== undefined) {
      delete segment.inFlight;
      await sealSegment(segment).catch(() => undefined);
    }
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const failure = new SpoolError('spool_unwritable', `the spool could not be written (${code})`, {
      cause: error,
    });
    for (const one of batch) one.reject(failure);
  }
}

async function writableSegment({ dir, segments, segmentBytes }: WriterState): Promise<Segment> {
  const last = segments.at(-1);
  if (last?.handle !== undefined && !last.sealed && last.committed < segmentBytes) return last;
  if (last !== undefined && !last.sealed) await sealSegment(last);
  const seq = (last?.seq ?? 0) + 1;
  const path = segmentPath(dir, seq);
  const handle = await open(path, 'a', 0o600);
  // The new file's name must survive a crash as well as its records.
  fsyncDir(dir);
  const segment: Segment = { seq, path, committed: 0, drained: 0, count: 0, sealed: false, handle };
  segments.push(segment);
  return segment;
}

/** One batch's bytes appended to the file and fsync'd: only then is any of it answered 200. */
async function writeAndSync(segment: Segment, bytes: Buffer): Promise<void> {
  if (segment.handle === undefined) throw new Error('spool file is closed');
  await segment.handle.write(bytes, 0, bytes.length, null);
  await segment.handle.datasync();
}
