/** Error bodies are read up to this many bytes: enough for any platform error list. */
export const ERROR_BODY_CAP = 64 * 1024;

/**
 * Reads at most `cap` bytes of a body as UTF-8 and cancels the rest, so a gateway that answers a
 * failure with megabytes cannot fill memory. A body that breaks off mid-way yields what arrived.
 */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  cap: number = ERROR_BODY_CAP,
): Promise<string> {
  if (body === null) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < cap) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = cap - size;
      const kept = value.byteLength > room ? value.subarray(0, room) : value;
      chunks.push(kept);
      size += kept.byteLength;
    }
  } catch {
    // A broken error body is no reason to lose the status: keep what arrived.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
}
