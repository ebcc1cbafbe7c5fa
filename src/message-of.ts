/**
 * The message of anything thrown, with its cause's (fetch says only "fetch failed"; the cause says
 * ECONNREFUSED). `withCause: false` keeps the error's own message alone: a delivery's error keeps
 * no cause, since a client library's may quote the URL it was made of (routes/delivery-error.ts).
 * Duck-typed, not `instanceof Error`: errors made by Node internals may come from another realm (a
 * test runner's VM context).
 */
export function messageOf(
  error: unknown,
  { withCause = true }: { withCause?: boolean } = {},
): string {
  const own = textOf(error);
  const cause =
    withCause && typeof error === 'object' && error !== null
      ? (error as { cause?: unknown }).cause
      : undefined;
  return cause === undefined ? own : `${own}: ${textOf(cause)}`;
}

function textOf(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    const message = (value as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return String(value);
}
