import { withTimeout } from '../../src/with-timeout';

/**
 * `promise`, or a failure naming `what` once `ms` pass: a step of a test that could wait forever
 * fails saying which step it was, instead of running into jest's own timeout saying nothing.
 */
export function within<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  return withTimeout(promise, ms, () => new Error(`${what}: not done within ${String(ms)} ms`));
}
