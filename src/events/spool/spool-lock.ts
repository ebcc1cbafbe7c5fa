import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
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

/**
 * Takes `<dir>/spool.lock`, created with O_EXCL and holding this process's pid. Two listeners
 * appending to one spool would interleave frames and drain each other's entries, so a lock held
 * by a live process refuses the start. A lock whose process is gone (a listener killed with
 * SIGKILL) is stale and taken over; so is one holding our own pid with another start time (a
 * container restarted as pid 1 finds its previous life's lock).
 */
export function acquireSpoolLock(dir: string): SpoolLock {
  const path = join(dir, 'spool.lock');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${String(process.pid)} ${String(startedAt())}\n`);
      closeSync(fd);
      return { release: () => unlinkSync(path) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = lockHolder(path);
    if (holder !== undefined && isHeld(holder)) throw new SpoolLockedError(dir, holder.pid);
    unlinkSync(path);
  }
  throw new Error(`spool lock ${path} could not be taken`);
}

interface LockHolder {
  pid: number;
  /** When the holder started (Unix ms): tells this process from an earlier one with its pid. */
  startedAt: number;
}

/** The holder named in a lock file; undefined when it names none (a process killed while writing it). */
function lockHolder(path: string): LockHolder | undefined {
  const [pid, started] = readFileSync(path, 'utf8').trim().split(' ').map(Number);
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
