import {
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  writeSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import type { Logger } from '../../logger';
import type { UnreadableRange } from './spool-frame';
import { fsyncDir } from './fsync-dir';
import type { Segment } from './spool-segments';

/** Where unreadable bytes are kept, beside the spool's files. */
const BAD_DIR = 'bad';

const WRITE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

export interface KeepUnreadableOptions {
  dir: string;
  segment: Segment;
  /** The bytes read, and where in the file they start. */
  bytes: Buffer;
  base: number;
  ranges: readonly UnreadableRange[];
  logger: Logger;
  /** Counts the bytes kept (svcws_spool_unreadable_bytes_total). */
  onKept: (bytes: number) => void;
}

/**
 * Each range of a file that holds no readable record is copied, as it is, to `bad/` (mode 0600)
 * before the file can go, counted, and said in one line by where it is and how large: never its
 * bytes, which may hold patron data. A range already kept (read at start-up, then by the drain)
 * is not kept twice. Throws when the copy cannot be written: the file then stays.
 */
export function keepUnreadable(options: KeepUnreadableOptions): void {
  const { dir, segment, bytes, base, logger } = options;
  for (const range of options.ranges) {
    const offset = base + range.offset;
    if (segment.kept.has(offset)) continue;
    const path = join(badDir(dir), `${basename(segment.path)}.${String(offset)}.bad`);
    writeDurably(path, bytes.subarray(range.offset, range.offset + range.size));
    fsyncDir(join(dir, BAD_DIR));
    segment.kept.add(offset);
    options.onKept(range.size);
    logger.warn(
      { segment: segment.path, offset, bytes: range.size, reason: range.reason, keptIn: path },
      range.reason === 'torn'
        ? 'spool: torn tail kept aside (a write cut short)'
        : 'spool: unreadable bytes kept aside; the records around them are drained',
    );
  }
}

/** `<dir>/bad`, made 0700 when missing; refused when it is not a directory of its own. */
function badDir(dir: string): string {
  const path = join(dir, BAD_DIR);
  try {
    mkdirSync(path, { mode: 0o700 });
    fsyncDir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (!lstatSync(path).isDirectory()) throw new Error(`${path} is not a directory`);
  }
  return path;
}

function writeDurably(path: string, bytes: Buffer): void {
  const fd = openSync(path, WRITE_NEW, 0o600);
  try {
    for (let done = 0; done < bytes.length;) {
      const written = writeSync(fd, bytes, done);
      if (written === 0) throw new Error(`${path}: the disk took no bytes`);
      done += written;
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
