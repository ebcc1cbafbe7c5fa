import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SpoolFileWrite } from '../../src/events/spool/spool-writer';

/** Bytes of the regular files under `dir` (and its subdirectories), as a disk would count them. */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/**
 * The spool's write onto a disk of `capacity` bytes holding `dir`, where a tmpfs cannot be
 * mounted: what the files under `dir` already hold is used; a write takes what room is left and
 * comes back short (as the last write before a full disk does), and with no room fails ENOSPC.
 * Room comes back as the files shrink or go (the drain removes them, a failed write is cut off).
 */
export function smallDiskWrite(dir: string, capacity: number): SpoolFileWrite {
  return async (handle, bytes, offset, length) => {
    const room = Math.max(0, capacity - bytesUnder(dir));
    if (room === 0) {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
        errno: -28,
        syscall: 'write',
      });
    }
    return handle.write(bytes, offset, Math.min(length, room), null);
  };
}
