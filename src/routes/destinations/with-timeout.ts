import { DeliveryError } from '../delivery-error';

/**
 * Rejects with a retryable DeliveryError when `promise` has not settled within `ms`: a broker that
 * takes a publish and never confirms must not hold a delivery (and its job lock) forever.
 */
export async function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
  waitingFor = 'confirmation',
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(
        new DeliveryError(`${what}: no ${waitingFor} within ${String(ms)} ms`, { retryable: true }),
      );
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
