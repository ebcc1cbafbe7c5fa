import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  readdirSync,
  unlinkSync,
} from 'node:fs';
import { unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../logger';
import { fsyncDir } from './fsync-dir';
import { keepUnreadable } from './keep-unreadable';
import { decodeSpoolFrames, spoolFormatOf } from './spool-frame';
import type { SpoolFormat } from './spool-frame';
import { SpoolDirError } from './spool-dir-error';
import { errField } from '../../err-field';

/** One file of the spool, as the process keeps track of it. */
export interface Segment {
  seq: number;
  path: string;
  /** How its records are framed: files from before the magic number are still read. */
  format: SpoolFormat;
  /** Bytes written and fsync'd: the drain reads no further. */
  committed: number;
  /** Where the drain has reached (delivered, perhaps not yet confirmed by the replicas). */
  drained: number;
  /** Records in the file: they leave the spool's depth when the drain removes it. */
  count: number;
  /** spooledAt of the file's first record. */
  oldestAt?: number | undefined;
  /** No more appends go here: the drain took it, or a previous process left it. */
  sealed: boolean;
  /** Offsets of the unreadable ranges already kept in bad/ (keep-unreadable.ts). */
  kept: Set<number>;
  handle?: FileHandle;
  /** The write under way, if any. */
  inFlight?: Promise<void>;
}

/** Said when bytes that hold no record could not be copied to bad/: their file is not removed. */
export const KEEP_FAILED =
  'spool: unreadable bytes could not be kept aside; their file stays on disk until they are';

const SEGMENT_NAME = /^(\d{12})\.spool$/;

/** Never through a symbolic link: a link at a segment's path must not send patron data elsewhere. */
export const READ_NOFOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW;

export function segmentPath(dir: string, seq: number): string {
  return join(dir, `${String(seq).padStart(12, '0')}.spool`);
}

export interface ReadSegmentsOptions {
  dir: string;
  logger: Logger;
  onKept: (bytes: number) => void;
}

/**
 * The files a previous process left, oldest first, each sealed. Nothing is cut off: bytes that
 * hold no record (a write cut short, damage) are kept in bad/ and said (keep-unreadable.ts), and
 * the records around them are drained. A file with no record is removed once that is done.
 */
export function readSegments({ dir, logger, onKept }: ReadSegmentsOptions): Segment[] {
  const segments: Segment[] = [];
  const names = readdirSync(dir)
    .filter((name) => SEGMENT_NAME.test(name))
    .sort();
  for (const name of names) {
    const path = join(dir, name);
    const bytes = readWhole(path);
    const format = spoolFormatOf(bytes);
    const { frames, unreadable } = decodeSpoolFrames(bytes, format);
    const segment: Segment = {
      seq: Number(SEGMENT_NAME.exec(name)?.[1]),
      path,
      format,
      committed: bytes.length,
      drained: 0,
      count: frames.length,
      oldestAt: spooledAtOf(frames[0]?.payload),
      sealed: true,
      kept: new Set(),
    };
    try {
      keepUnreadable({ dir, segment, bytes, base: 0, ranges: unreadable, logger, onKept });
    } catch (error) {
      // A full disk must not stop the start: the drain tries again, and keeps the file meanwhile.
      logger.error({ err: errField(error), segment: path }, KEEP_FAILED);
      segments.push(segment);
      continue;
    }
    if (frames.length === 0) {
      unlinkSync(path);
      continue;
    }
    segments.push(segment);
  }
  return segments;
}

/** A spool file's bytes, read without following a link; refused when it is not a plain file. */
function readWhole(path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, READ_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new SpoolDirError('spool_file_symlink', path, 'is a symbolic link');
    }
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new SpoolDirError('spool_file_not_file', path, 'is not a file');
    const bytes = Buffer.alloc(stats.size);
    for (let done = 0; done < bytes.length;) {
      const read = readSync(fd, bytes, done, bytes.length - done, done);
      if (read === 0) return bytes.subarray(0, done);
      done += read;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** When the first record was spooled (the oldest entry's age); undefined for one unreadable. */
function spooledAtOf(payload: Buffer | undefined): number | undefined {
  try {
    const { spooledAt } = JSON.parse(payload?.toString('utf8') ?? '') as { spooledAt?: unknown };
    return typeof spooledAt === 'number' ? spooledAt : undefined;
  } catch {
    return undefined;
  }
}

/** No more appends to this file; its handle is closed (a write under way closes it when done). */
export async function sealSegment(segment: Segment): Promise<void> {
  segment.sealed = true;
  const { handle } = segment;
  if (handle === undefined || segment.inFlight !== undefined) return;
  delete segment.handle;
  await handle.close();
}

/** A drained file goes; the directory is synced so it does not come back after a crash. */
export async function removeSegment(dir: string, segment: Segment): Promise<void> {
  await unlink(segment.path);
  fsyncDir(dir);
}
