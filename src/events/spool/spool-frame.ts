import { crc32 } from 'node:zlib';

/** Bytes before each record's payload: its length, then the CRC-32 of the payload. */
const FRAME_HEADER_BYTES = 8;

/** One record as it goes to disk: length (u32 BE), CRC-32 of the payload (u32 BE), payload. */
export function encodeSpoolFrame(payload: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  frame.writeUInt32BE(crc32(payload), 4);
  payload.copy(frame, FRAME_HEADER_BYTES);
  return frame;
}

/** A record read back, with where its frame starts and ends in the bytes read. */
export interface SpoolFrame {
  payload: Buffer;
  start: number;
  end: number;
}

/** A frame that could not be read: a torn tail (cut mid-write) or a payload whose checksum fails. */
export interface BadFrame {
  offset: number;
  reason: 'torn' | 'checksum';
}

/**
 * The records of `bytes`, in order. A frame whose checksum fails is skipped (its length still
 * says where the next one starts); a frame cut short — the last write of a process killed
 * mid-append — ends the reading, and `validBytes` says where the whole frames end.
 */
export function decodeSpoolFrames(bytes: Buffer): {
  frames: SpoolFrame[];
  bad: BadFrame[];
  validBytes: number;
} {
  const frames: SpoolFrame[] = [];
  const bad: BadFrame[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (bytes.length - offset < FRAME_HEADER_BYTES) break;
    const length = bytes.readUInt32BE(offset);
    const end = offset + FRAME_HEADER_BYTES + length;
    if (end > bytes.length) break;
    const payload = bytes.subarray(offset + FRAME_HEADER_BYTES, end);
    if (crc32(payload) === bytes.readUInt32BE(offset + 4))
      frames.push({ payload, start: offset, end });
    else bad.push({ offset, reason: 'checksum' });
    offset = end;
  }
  if (offset < bytes.length) bad.push({ offset, reason: 'torn' });
  return { frames, bad, validBytes: offset };
}
