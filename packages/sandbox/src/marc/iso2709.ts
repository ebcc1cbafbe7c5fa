import type { MarcRecord } from './marc-record';

const FIELD_TERMINATOR = '\x1e';
const RECORD_TERMINATOR = '\x1d';
const SUBFIELD_DELIMITER = '\x1f';

/** The record's leader with its length (0–4) and base address (12–16) filled in. */
function leaderOf(record: MarcRecord, recordLength: number, baseAddress: number): string {
  return (
    String(recordLength).padStart(5, '0') +
    record.leader.slice(5, 12) +
    String(baseAddress).padStart(5, '0') +
    record.leader.slice(17)
  );
}

/** One ISO 2709 record: leader, directory, fields, 0x1D; lengths in bytes (UTF-8). */
export function toIso2709(record: MarcRecord): Buffer {
  const fields: [string, string][] = [
    ...record.controlFields.map(([tag, value]): [string, string] => [
      tag,
      value + FIELD_TERMINATOR,
    ]),
    ...record.dataFields.map((field): [string, string] => [
      field.tag,
      field.ind1 +
        field.ind2 +
        field.subfields.map(([code, value]) => SUBFIELD_DELIMITER + code + value).join('') +
        FIELD_TERMINATOR,
    ]),
  ];
  let directory = '';
  let offset = 0;
  for (const [tag, data] of fields) {
    const length = Buffer.byteLength(data);
    directory += tag + String(length).padStart(4, '0') + String(offset).padStart(5, '0');
    offset += length;
  }
  directory += FIELD_TERMINATOR;
  const baseAddress = 24 + directory.length;
  const recordLength = baseAddress + offset + 1;
  const body = directory + fields.map(([, data]) => data).join('') + RECORD_TERMINATOR;
  return Buffer.from(leaderOf(record, recordLength, baseAddress) + body, 'utf8');
}
