import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** A second listener on the same spool directory: refused at start-up, naming the holder. */
export class SpoolLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `spool directory ${dir} is in use by process ${String(pid)} (SPOOL_DIR: one per listener)`,
    );
    this.name = 'SpoolLockedError';
  }
}

export interface SpoolLock {
  release: () => void;
}

/** How long a start waits for another process that is taking over the same stale lock. */
const TAKEOVER_WAIT_MS = 5000;

/**
 * Takes `<dir>/spool.lock`, holding this process's pid and start time. Two listeners appending to
 * one spool would interleave frames and drain each other's entries, so a lock held by a live
 * process refuses the start. A lock whose process is gone (a listener killed with SIGKILL) is
 * stale and taken over; so is one holding our own pid with another start time (a container
 * restarted as pid 1 finds its previous life's lock). The lock appears whole or not at all (a
 * file written aside, then linked: link fails if the name exists), and a stale one is replaced
 * only by the one process that wins its takeover mark (`takeOver`): of processes racing for a
 * stale lock, exactly one gets it.
 */
export function acquireSpoolLock(dir: string): SpoolLock {
  const path = join(dir, 'spool.lock');
  const me = `${String(process.pid)} ${String(startedAt())}\n`;
  const deadline = Date.now() + TAKEOVER_WAIT_MS;
  while (Date.now() < deadline) {
    if (createWith(path, me)) return lockOf(path, me);
    const seen = contentOf(path);
    if (seen === undefined) continue;
    const holder = lockHolder(seen);
    if (holder !== undefined && isHeld(holder)) throw new SpoolLockedError(dir, holder.pid);
    if (takeOver(path, seen, me, 0)) return lockOf(path, me);
    // Another process is taking it over: its lock, once there, is live and refuses this start.
    sleepSync(5);
  }
  throw new Error(`spool lock ${path} could not be taken within ${String(TAKEOVER_WAIT_MS)} ms`);
}

function lockOf(path: string, me: string): SpoolLock {
  return {
    release: () => {
      // Never another's: only ours goes.
      if (contentOf(path) === me) unlinkSync(path);
    },
  };
}

/**
 * Replaces the stale `seen` at `path` with `me`, if this process is the one that creates its
 * takeover mark (a name derived from `seen`, created exclusively). Holding the mark, the lock is
 * checked to be `seen` still and renamed over: nothing else can change it meanwhile (its holder
 * is dead, a create fails on an existing name, and its takeover is ours alone). A mark left by a
 * process that died holding it is taken over the same way, one level down.
 */
function takeOver(path: string, seen: string, me: string, depth: number): boolean {
  const mark = `${path}.takeover-${createHash('sha256').update(seen).digest('hex').slice(0, 16)}`;
  if (!createWith(mark, me)) {
    const taker = contentOf(mark);
    const holder = taker === undefined ? undefined : lockHolder(taker);
    if (taker === undefined || holder === undefined || isHeld(holder)) return false;
    if (depth >= 3 || !takeOver(mark, taker, me, depth + 1)) return false;
  }
  try {
    if (contentOf(path) !== seen) return false;
    const aside = writeAside(path, me);
    renameSync(aside, path);
    return true;
  } finally {
    unlinkSync(mark);
  }
}

/** Creates `path` holding `content` whole, unless it exists. */
function createWith(path: string, content: string): boolean {
  const aside = writeAside(path, content);
  try {
    linkSync(aside, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    unlinkSync(aside);
  }
}

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** A new file beside `path` holding `content`, synced: what a link or rename puts in place. */
function writeAside(path: string, content: string): string {
  const aside = `${path}.${String(process.pid)}-${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(aside, CREATE_NEW, 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return aside;
}

/** The file's text; undefined when it is not there (released or taken over meanwhile). */
function contentOf(path: string): string | undefined {
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      return readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

interface LockHolder {
  pid: number;
  /** When the holder started (Unix ms): tells this process from an earlier one with its pid. */
  startedAt: number;
}

/** The holder named in a lock file; undefined when it names none (written by an older version, cut). */
function lockHolder(content: string): LockHolder | undefined {
  const [pid, started] = content.trim().split(' ').map(Number);
  if (pid === undefined || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return { pid, startedAt: started ?? 0 };
}

/**
 * A live process holds it: another pid that exists, or this very process (a second spool opened
 * on the same directory). Our pid with another start time is an earlier life of a container.
 */
function isHeld(holder: LockHolder): boolean {
  if (holder.pid !== process.pid) return isAlive(holder.pid);
  return Math.abs(holder.startedAt - startedAt()) < 1000;
}

/** This process's start, to the second: stable across calls, unlike a pid across restarts. */
function startedAt(): number {
  return Math.round((Date.now() - process.uptime() * 1000) / 1000) * 1000;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user — still alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
