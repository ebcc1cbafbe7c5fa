import { Readable } from 'node:stream';
import { toIso2709 } from './iso2709';
import { sampleRecord } from './marc-record';
import { MARCXML_FOOTER, MARCXML_HEADER, toMarcXml } from './marcxml';

export type DownloadFormat = 'XML' | 'BINARY';

export interface MarcStreamOptions {
  readonly format: DownloadFormat;
  readonly count: number;
  /** Seeds the records: the same text gives the same file. */
  readonly seedText: string;
}

/** Records per pushed chunk: about 40–90 KB, so a pipe moves in few, not tiny, writes. */
const RECORDS_PER_CHUNK = 64;

/**
 * The download body, produced on demand: records are generated only when the consumer asks for
 * more (`read()`), so hundreds of MB stream through in constant memory with backpressure.
 */
export function createMarcStream({ format, count, seedText }: MarcStreamOptions): Readable {
  let next = 0;
  let headerSent = false;
  const encode = (index: number): Buffer => {
    const record = sampleRecord(seedText, index);
    return format === 'XML' ? Buffer.from(toMarcXml(record), 'utf8') : toIso2709(record);
  };
  return new Readable({
    highWaterMark: 64 * 1024,
    read() {
      for (;;) {
        const chunks: Buffer[] = [];
        if (!headerSent) {
          headerSent = true;
          if (format === 'XML') chunks.push(Buffer.from(MARCXML_HEADER, 'utf8'));
        }
        const end = Math.min(count, next + RECORDS_PER_CHUNK);
        for (; next < end; next += 1) chunks.push(encode(next));
        const done = next >= count;
        if (done && format === 'XML') chunks.push(Buffer.from(MARCXML_FOOTER, 'utf8'));
        const more = chunks.length === 0 || this.push(Buffer.concat(chunks));
        if (done) {
          this.push(null);
          return;
        }
        if (!more) return;
      }
    },
  });
}
