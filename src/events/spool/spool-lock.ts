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
 * SIGKILL) is stale and taken over; so is one holding our own pid (a container restarted as
 * pid 1 finds its previous life's lock).
 */
export function acquireSpoolLock(dir: string): SpoolLock {
  const path = join(dir, 'spool.lock');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${String(process.pid)}\n`);
      closeSync(fd);
      return { release: () => unlinkSync(path) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = lockHolder(path);
    if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
      throw new SpoolLockedError(dir, holder);
    }
    unlinkSync(path);
  }
  throw new Error(`spool lock ${path} could not be taken`);
}

/** The pid in a lock file; undefined when it holds none (a process killed while writing it). */
function lockHolder(path: string): number | undefined {
  const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
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
