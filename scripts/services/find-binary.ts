import { accessSync, constants, readdirSync } from 'node:fs';
import path from 'node:path';

/** Where Debian's packages put server programs that are not on a user's PATH. */
const SYSTEM_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

function executable(candidate: string): boolean {
  try {
    accessSync(candidate, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` in `dirs`, then on PATH, then in the system's directories. */
export function findBinary(name: string, dirs: readonly string[] = []): string | undefined {
  const onPath = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== '');
  for (const dir of [...dirs, ...onPath, ...SYSTEM_DIRS]) {
    const candidate = path.join(dir, name);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

/** Debian keeps PostgreSQL's server programs per version: /usr/lib/postgresql/<major>/bin, newest first. */
export function postgresBinDirs(): string[] {
  try {
    return readdirSync('/usr/lib/postgresql')
      .filter((version) => /^\d+$/.test(version))
      .sort((a, b) => Number(b) - Number(a))
      .map((version) => `/usr/lib/postgresql/${version}/bin`);
  } catch {
    return [];
  }
}
