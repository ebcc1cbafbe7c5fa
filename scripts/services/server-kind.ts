/** What starting one private server is given: a directory of its own and a way to run as a user. */
export interface ServerStartContext {
  /** An empty directory of the server's own, removed after it stops. */
  readonly dir: string;
  /** A user to run as when this process is root and the server refuses root (PostgreSQL). */
  readonly unprivileged: { uid: number; gid: number } | undefined;
}

export interface RunningServer {
  /** The address the tests use, e.g. redis://127.0.0.1:41234. */
  readonly url: string;
  /** Stops the server and whatever it started; resolves when they are gone. */
  stop(): Promise<void>;
}

/** One row of the table: a server the tests and the demo start privately. */
export interface PrivateServerKind extends Installable {
  /** What it is, for the README's list and the messages. */
  readonly title: string;
  /** The environment variable that hands its address to the tests. */
  readonly variable: string;
  start(context: ServerStartContext): Promise<RunningServer>;
}

/** Programs found by name in `dirs`, then on PATH, and the Debian packages that bring them. */
export interface Installable {
  readonly name: string;
  readonly packages: readonly string[];
  readonly binaries: readonly { name: string; dirs?: () => readonly string[] }[];
}

/** A program some tests or checks run (not a server). */
export interface ToolKind extends Installable {
  /** Who needs it, for the README's list. */
  readonly usedBy: string;
  /** `tests`: `npm test` needs it; `image-check`: only `npm run image:check` (and `.ci/run`). */
  readonly neededFor: 'tests' | 'image-check';
}
