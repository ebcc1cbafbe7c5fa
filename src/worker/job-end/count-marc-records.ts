import { UnrecoverableError } from 'bullmq';
import { SaxesParser } from 'saxes';
import { StringDecoder } from 'node:string_decoder';
import type { DownloadFormat } from './records-path';

/** Counts MARC records in a byte stream fed chunk by chunk; memory stays flat whatever the size. */
export interface MarcRecordCounter {
  write(chunk: Buffer): void;
  /** The number of records; throws MalformedMarcError when the stream was not whole, valid MARC. */
  end(): number;
}

/**
 * The bytes are not MARC of the requested format (or they stop mid-record). Permanent: they are
 * what the service sends for this instance, so a retry would fetch the same bytes.
 */
export class MalformedMarcError extends UnrecoverableError {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedMarcError';
  }
}

export function createMarcRecordCounter(format: DownloadFormat): MarcRecordCounter {
  return format === 'XML' ? marcXmlCounter() : iso2709Counter();
}

const RECORD_TERMINATOR = 0x1d;

/**
 * ISO 2709: every record ends with the record terminator 0x1D, a byte that cannot occur inside
 * a record, so counting terminators counts records without decoding them (Buffer.indexOf runs
 * natively). What follows the last terminator may only be whitespace; anything else is a record cut
 * short. The leader's declared length is not trusted: files in the wild often get it wrong.
 */
function iso2709Counter(): MarcRecordCounter {
  let records = 0;
  let pendingData = false;
  return {
    write(chunk) {
      let from = 0;
      for (;;) {
        const at = chunk.indexOf(RECORD_TERMINATOR, from);
        if (at === -1) break;
        records += 1;
        from = at + 1;
        pendingData = false;
      }
      if (!pendingData && from < chunk.length) pendingData = !isWhitespace(chunk, from);
    },
    end() {
      if (pendingData) {
        throw new MalformedMarcError(
          `ISO 2709 stream ends inside a record (after ${String(records)} complete records)`,
        );
      }
      return records;
    },
  };
}

function isWhitespace(chunk: Buffer, from: number): boolean {
  for (let index = from; index < chunk.length; index += 1) {
    const byte = chunk[index];
    if (byte !== 0x0a && byte !== 0x0d && byte !== 0x20 && byte !== 0x09) return false;
  }
  return true;
}

/**
 * MARCXML: a streaming XML parser (saxes), so comments, CDATA, entities and namespace prefixes
 * (`<marc:record>`) are read as XML, not guessed at with string search. A record is a `record`
 * element that is the root or a child of the root `collection` (MARC21 slim schema); nested
 * elements are never counted. The parser keeps only the open-element stack.
 */
function marcXmlCounter(): MarcRecordCounter {
  const parser = new SaxesParser();
  const decoder = new StringDecoder('utf8');
  let records = 0;
  let depth = 0;
  let rootIsCollection = false;
  let failure: Error | undefined;
  parser.on('opentag', (tag) => {
    const local = localName(tag.name);
    if (depth === 0) rootIsCollection = local === 'collection';
    if (local === 'record' && (depth === 0 || (depth === 1 && rootIsCollection))) records += 1;
    if (!tag.isSelfClosing) depth += 1;
  });
  parser.on('closetag', (tag) => {
    if (!tag.isSelfClosing) depth -= 1;
  });
  parser.on('error', (error) => {
    failure ??= error;
  });
  const check = (): void => {
    if (failure) throw new MalformedMarcError(`not well-formed MARCXML: ${failure.message}`);
  };
  return {
    write(chunk) {
      check();
      parser.write(decoder.write(chunk));
    },
    end() {
      check();
      parser.write(decoder.end());
      parser.close();
      check();
      return records;
    },
  };
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}
