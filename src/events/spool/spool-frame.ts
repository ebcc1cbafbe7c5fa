import { crc32 } from 'node:zlib';

/**
 * Starts every frame. 0xF5 never occurs in UTF-8, so no JSON payload holds it: after damage the
 * reader looks for the next one and resynchronises there.
 */
const MAGIC = Buffer.from([0xf5, 0x53, 0x50, 0x4c]);

/** magic, payload length (u32 BE), CRC-32 of the payload, CRC-32 of the 12 bytes before it. */
const HEADER_BYTES = 16;

/** The framing before the magic (files written before it, drained after an upgrade): length, CRC-32. */
const OLD_HEADER_BYTES = 8;

/** Every payload is a spool entry, a JSON object that starts so (spool-entry.ts). */
const OLD_PAYLOAD_START = Buffer.from('{"kind":"');

/** How a file's records are framed: `magic` since frames carry one, `length` before. */
export type SpoolFormat = 'magic' | 'length';

/** One record as it goes to disk: magic, length, payload CRC-32, header CRC-32, payload. */
export function encodeSpoolFrame(payload: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
  MAGIC.copy(frame, 0);
  frame.writeUInt32BE(payload.length, 4);
  frame.writeUInt32BE(crc32(payload), 8);
  frame.writeUInt32BE(crc32(frame.subarray(0, 12)), 12);
  payload.copy(frame, HEADER_BYTES);
  return frame;
}

/** A record read back, with where its frame starts and ends in the bytes read. */
export interface SpoolFrame {
  payload: Buffer;
  start: number;
  end: number;
}

/**
 * Bytes that hold no readable frame: `torn` when they run to the end of what was read (a write
 * cut short leaves that), `damaged` anywhere else.
 */
export interface UnreadableRange {
  offset: number;
  size: number;
  reason: 'damaged' | 'torn';
}

/** The format of a spool file: `magic` if any frame header in it holds, else the old framing. */
export function spoolFormatOf(bytes: Buffer): SpoolFormat {
  if (bytes.length === 0 || nextFrameAt(bytes, 0, 'magic') < bytes.length) return 'magic';
  return 'length';
}

/**
 * The records of `bytes`, in order, and the ranges between them that hold none. A header that
 * does not hold (its checksum, or a length past the end) is not trusted: the reader looks for the
 * next whole frame after it and goes on from there, so damage costs the records it touches only.
 */
export function decodeSpoolFrames(
  bytes: Buffer,
  format: SpoolFormat = 'magic',
): { frames: SpoolFrame[]; unreadable: UnreadableRange[] } {
  const frames: SpoolFrame[] = [];
  const unreadable: UnreadableRange[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const frame = frameAt(bytes, offset, format);
    if (frame !== undefined) {
      frames.push(frame);
      offset = frame.end;
      continue;
    }
    const next = nextFrameAt(bytes, offset + 1, format);
    const reason = next === bytes.length ? 'torn' : 'damaged';
    const last = unreadable.at(-1);
    // One range for adjacent damage (a zeroed page across several frames).
    if (last !== undefined && last.offset + last.size === offset) {
      last.size = next - last.offset;
      last.reason = reason;
    } else unreadable.push({ offset, size: next - offset, reason });
    offset = next;
  }
  return { frames, unreadable };
}

/** The whole frame at `offset`, if one is there: header and payload checksums hold. */
function frameAt(bytes: Buffer, offset: number, format: SpoolFormat): SpoolFrame | undefined {
  const header = format === 'magic' ? HEADER_BYTES : OLD_HEADER_BYTES;
  if (bytes.length - offset < header) return undefined;
  if (format === 'magic') {
    if (!bytes.subarray(offset, offset + 4).equals(MAGIC)) return undefined;
    if (crc32(bytes.subarray(offset, offset + 12)) !== bytes.readUInt32BE(offset + 12))
      return undefined;
  }
  const length = bytes.readUInt32BE(offset + (format === 'magic' ? 4 : 0));
  const end = offset + header + length;
  if (end > bytes.length) return undefined;
  const payload = bytes.subarray(offset + header, end);
  const sum = bytes.readUInt32BE(offset + (format === 'magic' ? 8 : 4));
  return crc32(payload) === sum ? { payload, start: offset, end } : undefined;
}

/** Where the next whole frame at or after `from` starts; the end of `bytes` when none does. */
function nextFrameAt(bytes: Buffer, from: number, format: SpoolFormat): number {
  const mark = format === 'magic' ? MAGIC : OLD_PAYLOAD_START;
  const before = format === 'magic' ? 0 : OLD_HEADER_BYTES;
  for (let at = bytes.indexOf(mark, from + before); at >= 0; at = bytes.indexOf(mark, at + 1)) {
    const start = at - before;
    if (frameAt(bytes, start, format) !== undefined) return start;
  }
  return bytes.length;
}
