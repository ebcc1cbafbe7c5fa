import { crc32 } from 'node:zlib';
import {
  decodeSpoolFrames,
  encodeSpoolFrame,
  spoolFormatOf,
} from '../../../../src/events/spool/spool-frame';

/** Payloads like the spool's: JSON objects that start `{"kind":"`. */
const entry = (n: number): string =>
  JSON.stringify({ kind: 'job', n, pad: 'x'.repeat(150 + ((n * 37) % 200)) });

const payloadsOf = (bytes: Buffer, format: 'magic' | 'length' = 'magic'): string[] =>
  decodeSpoolFrames(bytes, format).frames.map((frame) => frame.payload.toString());

/** Thirty frames and where each starts and ends. */
function thirty(): { bytes: Buffer; starts: number[]; ends: number[]; texts: string[] } {
  const texts = Array.from({ length: 30 }, (_, i) => entry(i));
  const frames = texts.map((text) => encodeSpoolFrame(Buffer.from(text)));
  const starts: number[] = [];
  const ends: number[] = [];
  let at = 0;
  for (const frame of frames) {
    starts.push(at);
    at += frame.length;
    ends.push(at);
  }
  return { bytes: Buffer.concat(frames), starts, ends, texts };
}

/** The old framing (length, CRC-32 of the payload, payload): files written before the magic. */
function oldFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const frame = Buffer.alloc(8 + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  frame.writeUInt32BE(crc32(payload), 4);
  payload.copy(frame, 8);
  return frame;
}

describe('spool frames', () => {
  it('reads back every record written, in order, with nothing unreadable', () => {
    const { bytes, texts } = thirty();

    const { frames, unreadable } = decodeSpoolFrames(bytes);

    expect(frames.map((frame) => frame.payload.toString())).toEqual(texts);
    expect(unreadable).toEqual([]);
    expect(spoolFormatOf(bytes)).toBe('magic');
  });

  it.each([
    [
      'a bit of its length flipped',
      (bytes: Buffer, at: number) => bytes.writeUInt8(bytes.readUInt8(at + 5) ^ 0x01, at + 5),
    ],
    [
      'its length 100 shorter',
      (bytes: Buffer, at: number) => bytes.writeUInt32BE(bytes.readUInt32BE(at + 4) - 100, at + 4),
    ],
    [
      'a payload byte flipped',
      (bytes: Buffer, at: number) => bytes.writeUInt8(bytes.readUInt8(at + 40) ^ 0xff, at + 40),
    ],
    ['its magic number zeroed', (bytes: Buffer, at: number) => (bytes[at] = 0)],
  ])('a record with %s is lost alone, its bytes said by offset and size', (_, damage) => {
    const { bytes, starts, ends, texts } = thirty();
    const at = starts[4] ?? 0;
    damage(bytes, at);

    const { frames, unreadable } = decodeSpoolFrames(bytes);

    expect(frames.map((frame) => frame.payload.toString())).toEqual(
      texts.filter((_, i) => i !== 4),
    );
    expect(unreadable).toEqual([{ offset: at, size: (ends[4] ?? 0) - at, reason: 'damaged' }]);
  });

  it('loses only the records a zeroed 4 KiB page touches, as one range', () => {
    const { bytes, starts, ends, texts } = thirty();
    const from = (starts[4] ?? 0) + 10;
    bytes.fill(0, from, from + 4096);
    const touched = texts.filter((_, i) => (ends[i] ?? 0) > from && (starts[i] ?? 0) < from + 4096);

    const { frames, unreadable } = decodeSpoolFrames(bytes);

    expect(touched.length).toBeGreaterThan(3);
    expect(frames.map((frame) => frame.payload.toString())).toEqual(
      texts.filter((text) => !touched.includes(text)),
    );
    expect(unreadable).toHaveLength(1);
    expect(unreadable[0]?.reason).toBe('damaged');
    expect(unreadable[0]?.offset).toBe(starts[4]);
  });

  it('calls a last record cut short torn, and only that', () => {
    const { bytes, starts, texts } = thirty();
    const cut = bytes.subarray(0, bytes.length - 40);

    const { frames, unreadable } = decodeSpoolFrames(cut);

    expect(frames.map((frame) => frame.payload.toString())).toEqual(texts.slice(0, 29));
    expect(unreadable).toEqual([
      { offset: starts[29], size: cut.length - (starts[29] ?? 0), reason: 'torn' },
    ]);
  });

  it('reads files in the old framing (length, CRC-32), skipping damage there too', () => {
    const texts = Array.from({ length: 10 }, (_, i) => entry(i));
    const frames = texts.map(oldFrame);
    const bytes = Buffer.concat(frames);
    const third = (frames[0]?.length ?? 0) + (frames[1]?.length ?? 0);
    expect(spoolFormatOf(bytes)).toBe('length');
    expect(payloadsOf(bytes, 'length')).toEqual(texts);

    // A length pointing past the end: the old reader stopped there and lost the rest.
    bytes.writeUInt32BE(0x00ffffff, third);

    expect(payloadsOf(bytes, 'length')).toEqual(texts.filter((_, i) => i !== 2));
    expect(decodeSpoolFrames(bytes, 'length').unreadable).toEqual([
      { offset: third, size: frames[2]?.length, reason: 'damaged' },
    ]);
  });

  it('tells a file in the new framing whose first header is damaged from an old one', () => {
    const { bytes } = thirty();
    bytes.fill(0, 0, 16);

    expect(spoolFormatOf(bytes)).toBe('magic');
  });
});
