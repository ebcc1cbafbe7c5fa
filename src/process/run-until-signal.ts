import type { Logger } from '../logger';
import { errField } from '../err-field';

/** One thing to close on the way out, in the order given. */
export interface ShutdownStep {
  /** Names the step in log lines (`<name> close failed`). */
  readonly name: string;
  close(): Promise<void>;
  /**
   * A failure of this step is logged as a warning and the shutdown goes on to exit 0 (closing a
   * queue handle after its server is gone, say); otherwise it ends the shutdown with exit 1.
   */
  readonly mayFail?: boolean;
}

export interface RunUntilSignalOptions {
  readonly logger: Logger;
  /** Closed in order once a signal arrives. */
  readonly steps: readonly ShutdownStep[];
  /** The first line, with the signal: what the process does while it stops. */
  readonly stoppingMessage: string;
  /** The last line before exit 0; `stopped` unless given. */
  readonly stoppedMessage?: string;
  /**
   * SHUTDOWN_TIMEOUT_MS: past it, `onDeadline` runs, `deadlineMessage` is logged and the process
   * exits 1. No deadline when undefined.
   */
  readonly timeoutMs?: number;
  readonly deadlineMessage?: string;
  /** Runs when the deadline passes, before exit (the worker cancels its jobs in flight). */
  readonly onDeadline?: () => void;
  /** SIGTERM and SIGINT unless given. */
  readonly signals?: readonly NodeJS.Signals[];
  /** process.exit and process.on unless given (tests pass their own). */
  readonly exit?: (code: number) => void;
  readonly onSignal?: (signal: NodeJS.Signals, listener: () => void) => void;
}

export interface SignalHandle {
  /** Starts the shutdown as a signal would; resolves with the exit code it chose. */
  stop(signal: string): Promise<number>;
}

/**
 * The shutdown every process shares (web, worker, sandbox): on the first SIGTERM or SIGINT it
 * logs what it is doing, closes the steps in order, logs `stopped` and exits 0; a step that fails
 * (unless `mayFail`) logs `close failed` and exits 1; past the deadline it exits 1 whatever is
 * still open. Later signals are ignored: the first one's shutdown is already under way.
 */
export function runUntilSignal(options: RunUntilSignalOptions): SignalHandle {
  const { logger } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const onSignal =
    options.onSignal ??
    ((signal: NodeJS.Signals, listener: () => void) => process.on(signal, listener));
  let stopping: Promise<number> | undefined;

  const closeAll = async (): Promise<number> => {
    for (const step of options.steps) {
      try {
        await step.close();
      } catch (error) {
        if (!step.mayFail) {
          logger.error({ err: errField(error), step: step.name }, 'close failed');
          return 1;
        }
        logger.warn({ err: errField(error), step: step.name }, `${step.name} close failed`);
      }
    }
    logger.info(options.stoppedMessage ?? 'stopped');
    return 0;
  };

  const stop = (signal: string): Promise<number> => {
    if (stopping) return stopping;
    logger.info({ signal }, options.stoppingMessage);
    const deadline =
      options.timeoutMs === undefined ? undefined : armDeadline(options, options.timeoutMs, exit);
    stopping = closeAll().then((code) => {
      clearTimeout(deadline);
      exit(code);
      return code;
    });
    return stopping;
  };

  for (const signal of options.signals ?? ['SIGTERM', 'SIGINT']) {
    onSignal(signal, () => void stop(signal));
  }
  return { stop };
}

function armDeadline(
  options: RunUntilSignalOptions,
  timeoutMs: number,
  exit: (code: number) => void,
): NodeJS.Timeout {
  const timer = setTimeout(() => {
    options.logger.error(
      { timeoutMs },
      options.deadlineMessage ?? 'shutdown deadline passed; exiting',
    );
    options.onDeadline?.();
    exit(1);
  }, timeoutMs);
  // The deadline alone must not keep the process alive once everything is closed.
  timer.unref();
  return timer;
}
