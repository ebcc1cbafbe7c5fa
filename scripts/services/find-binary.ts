import { accessSync, constants, readdirSync } from 'node:fs';
import path from 'node:path';

function executable(candidate: string): boolean {
  try {
    accessSync(candidate, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first executable `name` in `dirs` (where Debian puts a server's programs off PATH), then on
 * PATH — only there: a program the user's PATH leaves out counts as missing.
 */
export function findBinary(name: string, dirs: readonly string[] = []): string | undefined {
  const onPath = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== '');
  for (const dir of [...dirs, ...onPath]) {
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
