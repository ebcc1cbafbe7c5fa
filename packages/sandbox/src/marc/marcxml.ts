import type { MarcRecord } from './marc-record';

export const MARCXML_HEADER =
  '<?xml version="1.0" encoding="UTF-8"?>\n<collection xmlns="http://www.loc.gov/MARC21/slim">\n';
export const MARCXML_FOOTER = '</collection>\n';

/** One `<record>` of a MARCXML collection. */
export function toMarcXml(record: MarcRecord): string {
  const parts = [`<record><leader>${record.leader}</leader>`];
  for (const [tag, value] of record.controlFields) {
    parts.push(`<controlfield tag="${tag}">${escapeXml(value)}</controlfield>`);
  }
  for (const field of record.dataFields) {
    parts.push(`<datafield tag="${field.tag}" ind1="${field.ind1}" ind2="${field.ind2}">`);
    for (const [code, value] of field.subfields) {
      parts.push(`<subfield code="${code}">${escapeXml(value)}</subfield>`);
    }
    parts.push('</datafield>');
  }
  parts.push('</record>\n');
  return parts.join('');
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"]/g, (char) =>
    char === '&' ? '&amp;' : char === '<' ? '&lt;' : char === '>' ? '&gt;' : '&quot;',
  );
}
