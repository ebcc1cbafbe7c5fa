/**
 * `promise`'s outcome, or the error `timedOut()` makes once `ms` pass without one. One timer, cleared
 * when the promise settles; a late rejection of a promise that already timed out is handled here,
 * never left unhandled. The promise itself is not cancelled: the caller decides what a late answer
 * means (a queue that did not answer, a destination that did not confirm, a scrape given up).
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(timedOut()), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
