import type { Readable } from 'node:stream';

/** Error bodies are read up to this many bytes: enough for any platform error list. */
const ERROR_BODY_CAP = 64 * 1024;

/**
 * Reads at most `cap` bytes of a body as UTF-8 and drops the rest (the stream is destroyed), so a
 * gateway that answers a failure with megabytes cannot fill memory. A body that breaks off
 * mid-way yields what arrived: the status is what matters.
 */
export async function readCapped(body: Readable, cap: number = ERROR_BODY_CAP): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      const kept = buffer.subarray(0, cap - size);
      chunks.push(kept);
      size += kept.byteLength;
      if (size >= cap) break;
    }
  } catch {
    // Keep what arrived.
  } finally {
    body.destroy();
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
}

/** A success answer past its cap: the body was dropped, the stream destroyed. */
export class BodyOverCap extends Error {
  constructor(readonly cap: number) {
    super(`answer larger than ${String(cap)} bytes`);
  }
}

/**
 * Reads a whole body as UTF-8 (success answers: one resource or one page of 100), as it streams:
 * past `cap` bytes the stream is destroyed and `BodyOverCap` thrown, so memory holds at most the
 * cap whatever the server sends.
 */
export async function readText(body: Readable, cap = Number.POSITIVE_INFINITY): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.byteLength;
    if (size > cap) {
      body.destroy();
      throw new BodyOverCap(cap);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
