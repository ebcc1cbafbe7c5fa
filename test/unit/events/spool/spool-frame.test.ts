import { decodeSpoolFrames, encodeSpoolFrame } from '../../../../src/events/spool/spool-frame';

const frames = (...texts: string[]): Buffer =>
  Buffer.concat(texts.map((text) => encodeSpoolFrame(Buffer.from(text))));

describe('spool frames', () => {
  it('reads back every record written, in order', () => {
    const { frames: read, bad, validBytes } = decodeSpoolFrames(frames('one', 'two', 'three'));

    expect(read.map((frame) => frame.payload.toString())).toEqual(['one', 'two', 'three']);
    expect(bad).toEqual([]);
    expect(validBytes).toBe(frames('one', 'two', 'three').length);
  });

  it('detects a last record cut short and says where the whole records end', () => {
    const whole = frames('one', 'two');
    const torn = Buffer.concat([whole, frames('three').subarray(0, 9)]);

    const { frames: read, bad, validBytes } = decodeSpoolFrames(torn);

    expect(read.map((frame) => frame.payload.toString())).toEqual(['one', 'two']);
    expect(bad).toEqual([{ offset: whole.length, reason: 'torn' }]);
    expect(validBytes).toBe(whole.length);
  });

  it('skips a record whose checksum fails and reads the ones after it', () => {
    const bytes = frames('one', 'two', 'three');
    // A flipped byte in the payload of "two" (8 header bytes after the first frame's 11).
    bytes[11 + 8] = 'T'.charCodeAt(0);

    const { frames: read, bad } = decodeSpoolFrames(bytes);

    expect(read.map((frame) => frame.payload.toString())).toEqual(['one', 'three']);
    expect(bad).toEqual([{ offset: 11, reason: 'checksum' }]);
  });
});
