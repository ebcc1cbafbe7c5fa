import type { Logger } from '../logger';

/** What a CLI command may touch: the environment and two line writers (no process globals). */
export interface CliIo {
  env: NodeJS.ProcessEnv | Record<string, string | undefined>;
  /** One line of the command's answer (stdout). */
  out: (line: string) => void;
  /** One line of a problem (stderr). */
  err: (line: string) => void;
  /** Bytes as they are, no newline added (`rejected show`); falls back to `out` when absent. */
  outBytes?: (bytes: Buffer) => void;
  /**
   * Where an operator action's JSON line goes (`cli action`, docs/logs.md): stderr from bin/cli.ts,
   * beside the command's answer on stdout. None: no line (cli-logger.ts).
   */
  logger?: Logger;
}
