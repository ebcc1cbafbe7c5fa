import {
  closeSync,
  fsyncSync,
  openSync,
  readFileSync,
  readdirSync,
  truncateSync,
  unlinkSync,
} from 'node:fs';
import { unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../logger';
import { decodeSpoolFrames } from './spool-frame';

/** One file of the spool, as the process keeps track of it. */
export interface Segment {
  seq: number;
  path: string;
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
  handle?: FileHandle;
  /** The write under way, if any. */
  inFlight?: Promise<void>;
}

const SEGMENT_NAME = /^(\d{12})\.spool$/;

export function segmentPath(dir: string, seq: number): string {
  return join(dir, `${String(seq).padStart(12, '0')}.spool`);
}

/**
 * The files a previous process left, oldest first, each sealed. A last record cut short (the
 * process died mid-write) is logged and cut off, so the file ends on a whole record; a file with
 * no record left is removed.
 */
export function readSegments(dir: string, logger: Logger): Segment[] {
  const segments: Segment[] = [];
  const names = readdirSync(dir)
    .filter((name) => SEGMENT_NAME.test(name))
    .sort();
  for (const name of names) {
    const path = join(dir, name);
    const bytes = readFileSync(path);
    const { frames, bad, validBytes } = decodeSpoolFrames(bytes);
    if (bad.some((one) => one.reason === 'torn')) {
      logger.warn(
        { segment: path, offset: validBytes, bytes: bytes.length - validBytes },
        'spool: torn last record skipped (a write cut short)',
      );
      truncateSync(path, validBytes);
    }
    if (frames.length === 0) {
      unlinkSync(path);
      continue;
    }
    segments.push({
      seq: Number(SEGMENT_NAME.exec(name)?.[1]),
      path,
      committed: validBytes,
      drained: 0,
      count: frames.length,
      oldestAt: spooledAtOf(frames[0]?.payload),
      sealed: true,
    });
  }
  return segments;
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

/** Makes the directory's entries (a file created or removed) durable. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
