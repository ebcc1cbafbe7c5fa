import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's `prometheus` package installs promtool here; .ci/run installs it when missing. */
const CANDIDATES = ['/usr/bin/promtool', '/usr/local/bin/promtool'];

/** The promtool binary, or a failure that says how to get one (never a skipped test). */
function promtoolPath(): string {
  const found = CANDIDATES.find((candidate) => existsSync(candidate));
  if (found === undefined) {
    throw new Error(
      'promtool not found: install Debian\'s "prometheus" package (apt-get install prometheus), as .ci/run does',
    );
  }
  return found;
}

export interface PromtoolRun {
  code: number;
  output: string;
}

/** Runs promtool with `args`; resolves with its exit code and its stdout + stderr. */
export function runPromtool(args: readonly string[], cwd?: string): Promise<PromtoolRun> {
  const binary = promtoolPath();
  return new Promise((resolve) => {
    execFile(binary, [...args], { cwd, timeout: 110_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}
