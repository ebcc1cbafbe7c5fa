import type { CliIo } from '../../../src/cli/cli-io';

export interface CapturedIo extends CliIo {
  stdout: () => string;
  stderr: () => string;
}

/** A CliIo that keeps what a command prints. */
export function captureIo(env: CliIo['env']): CapturedIo {
  const out: string[] = [];
  const err: string[] = [];
  return {
    env,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    stdout: () => out.join('\n'),
    stderr: () => err.join('\n'),
  };
}
