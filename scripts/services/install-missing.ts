import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { findBinary } from './find-binary';
import type { Installable } from './server-kind';

/** A row whose programs are not all there. */
function missingPackages(rows: readonly Installable[]): string[] {
  const packages = new Set<string>();
  for (const row of rows) {
    const absent = row.binaries.some(
      ({ name, dirs }) => findBinary(name, dirs?.() ?? []) === undefined,
    );
    if (absent) row.packages.forEach((each) => packages.add(each));
  }
  return [...packages];
}

/** True where this run may install Debian's packages itself: root, with apt-get. */
function canInstall(): boolean {
  return (
    process.getuid?.() === 0 &&
    existsSync('/etc/debian_version') &&
    findBinary('apt-get') !== undefined
  );
}

export class MissingServicesError extends Error {
  constructor(readonly packages: readonly string[]) {
    super(
      [
        `These programs are missing, and this run cannot install them (it installs only as root on Debian or Ubuntu):`,
        `  ${packages.join(' ')}`,
        'Install them with:',
        `  sudo apt-get install ${packages.join(' ')}`,
      ].join('\n'),
    );
  }
}

/**
 * Installs the Debian packages of the rows whose programs are missing, one line each on
 * `say`; where it cannot (not root, not Debian), throws one error listing them all and the one
 * command that installs them. Nothing is downloaded outside Debian's registry.
 */
export function installMissing(rows: readonly Installable[], say: (line: string) => void): void {
  const packages = missingPackages(rows);
  if (packages.length === 0) return;
  if (!canInstall()) throw new MissingServicesError(packages);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  for (const name of packages) {
    say(`installing ${name} from Debian's packages`);
    const args = ['install', '-y', '-qq', '--no-install-recommends', name];
    execFileSync('apt-get', args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  }
}
