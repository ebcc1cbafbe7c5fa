import { constants } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDirAsync } from './fsync-dir';
import { SpoolError } from './spool-error';
import { sealSegment, segmentPath } from './spool-segments';
import type { Segment } from './spool-segments';

/** A new file of the spool: never one already there, never through a symbolic link. */
const CREATE_NEW =
  constants.O_WRONLY |
  constants.O_APPEND |
  constants.O_CREAT |
  constants.O_EXCL |
  constants.O_NOFOLLOW;

/**
 * The spool's one write to its files (the file-system boundary): a write may take fewer bytes
 * than asked, or fail (ENOSPC). FileHandle.write unless another is passed in: a test's small disk
 * where a tmpfs cannot be mounted (test/helpers/small-disk-write.ts).
 */
export type SpoolFileWrite = (
  handle: FileHandle,
  bytes: Buffer,
  offset: number,
  length: number,
) => Promise<{ readonly bytesWritten: number }>;

const fileHandleWrite: SpoolFileWrite = (handle, bytes, offset, length) =>
  handle.write(bytes, offset, length, null);

export interface SpoolWriter {
  /** Appends one frame; resolves once the batch it went in is written and fsync'd. */
  write: (frame: Buffer, spooledAt: number) => Promise<void>;
  /** A batch is waiting or being written. */
  busy: () => boolean;
  /** Resolves once nothing is waiting or being written. */
  idle: () => Promise<void>;
  /** False since a write failed, until a write or `probe` succeeds: /readyz answers 503. */
  writable: () => boolean;
  /** Writes and syncs a small scratch file, and removes it: the disk takes writes again. */
  probe: () => Promise<void>;
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
  /** The code of the last write's failure; undefined while writes succeed. */
  failing?: string | undefined;
  /**
   * The highest file number used: a new file never takes the name of one drained but left on
   * disk (its unreadable bytes not yet kept aside: spool-drain.ts).
   */
  lastSeq?: number;
  /** The write to the files (FileHandle.write unless given). */
  write?: SpoolFileWrite | undefined;
}

/**
 * The spool's group commit: frames that arrive while one write and fsync are under way wait and
 * go together in the next, so a burst costs one fsync per batch, not one per delivery. Appends go
 * to the last file unless it is sealed (the drain took it) or full; then a new file begins.
 */
export function createSpoolWriter(state: WriterState): SpoolWriter {
  state.lastSeq ??= state.segments.at(-1)?.seq ?? 0;
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
    writable: () => state.failing === undefined,
    probe: async () => {
      if (state.failing === undefined) return;
      try {
        await probeWrite(state.dir, state.write ?? fileHandleWrite);
        state.failing = undefined;
      } catch (error) {
        throw unwritable(error);
      }
    },
  };
}

/**
 * One batch appended and fsync'd, then answered. A write that fails, or that the disk takes only
 * in part, fails the whole batch (503: never a 200 for bytes not on disk) and what it left is cut
 * off again, so the file ends on its last whole batch and the next write goes to the same file:
 * a disk that refuses writes does not get a new file per refusal.
 */
async function writeBatch(state: WriterState, batch: Pending[]): Promise<void> {
  const bytes = Buffer.concat(batch.map((one) => one.frame));
  let segment: Segment | undefined;
  try {
    segment = await writableSegment(state);
    const written = writeAndSync(segment, bytes, state.write ?? fileHandleWrite);
    segment.inFlight = written;
    await written;
    segment.committed += bytes.length;
    segment.count += batch.length;
    segment.oldestAt ??= batch[0]?.spooledAt;
    delete segment.inFlight;
    state.failing = undefined;
    // The drain sealed it while this write was under way.
    if (segment.sealed) await sealSegment(segment);
    for (const one of batch) one.resolve();
  } catch (error) {
    if (segment !== undefined) await undoWrite(segment);
    const failure = unwritable(error);
    state.failing = failure.message;
    for (const one of batch) one.reject(failure);
  }
}

/**
 * Cuts a failed write's bytes off the file (they were never answered 200). If even that fails the
 * file is sealed: what the write left lies past `committed`, where the drain never reads, and the
 * next process keeps it aside as a torn tail.
 */
async function undoWrite(segment: Segment): Promise<void> {
  delete segment.inFlight;
  try {
    if (segment.handle === undefined) throw new Error('spool file is closed');
    await segment.handle.truncate(segment.committed);
    await segment.handle.datasync();
    if (segment.sealed) await sealSegment(segment);
  } catch {
    await sealSegment(segment).catch(() => undefined);
  }
}

function unwritable(error: unknown): SpoolError {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  return new SpoolError('spool_unwritable', `the spool could not be written (${code})`, {
    cause: error,
  });
}

async function writableSegment(state: WriterState): Promise<Segment> {
  const { dir, segments, segmentBytes } = state;
  const last = segments.at(-1);
  if (last?.handle !== undefined && !last.sealed && last.committed < segmentBytes) return last;
  if (last !== undefined && !last.sealed) await sealSegment(last);
  const seq = Math.max(last?.seq ?? 0, state.lastSeq ?? 0) + 1;
  state.lastSeq = seq;
  const path = segmentPath(dir, seq);
  const handle = await open(path, CREATE_NEW, 0o600);
  // The new file's name must survive a crash as well as its records.
  await fsyncDirAsync(dir);
  const segment: Segment = {
    seq,
    path,
    format: 'magic',
    committed: 0,
    drained: 0,
    count: 0,
    sealed: false,
    kept: new Set(),
    handle,
  };
  segments.push(segment);
  return segment;
}

/**
 * One batch's bytes appended to the file and fsync'd: only then is any of it answered 200. A
 * write may take fewer bytes than asked (a disk filling up): the rest is written until all is.
 */
async function writeAndSync(segment: Segment, bytes: Buffer, write: SpoolFileWrite): Promise<void> {
  const { handle } = segment;
  if (handle === undefined) throw new Error('spool file is closed');
  await writeAll(handle, bytes, write);
  await handle.datasync();
}

async function writeAll(handle: FileHandle, bytes: Buffer, write: SpoolFileWrite): Promise<void> {
  for (let done = 0; done < bytes.length;) {
    const { bytesWritten } = await write(handle, bytes, done, bytes.length - done);
    if (bytesWritten === 0) {
      throw Object.assign(new Error('the disk took no bytes'), { code: 'ENOSPC' });
    }
    done += bytesWritten;
  }
}

/** The bytes of a typical batch, written and synced to a scratch file, then removed. */
const PROBE_BYTES = 4096;

async function probeWrite(dir: string, write: SpoolFileWrite): Promise<void> {
  const path = join(dir, 'write-probe');
  const handle = await open(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    await writeAll(handle, Buffer.alloc(PROBE_BYTES), write);
    await handle.datasync();
  } finally {
    await handle.close();
    await unlink(path);
  }
}
