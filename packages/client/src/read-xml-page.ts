import { SaxesParser } from 'saxes';
import type { Page } from './client-types';

/**
 * One page of a list answered in XML (docs/platform-shapes.md, "List responses"):
 * `<jobs total_record_count="42"><job>…</job><job>…</job></jobs>`. The items are the root's child
 * elements, each returned as its own XML text, unchanged (the caller asked for XML); the total is
 * the root's `total_record_count` attribute. A streaming XML parser (saxes) finds the element
 * boundaries, so comments, CDATA and attribute values holding `<` or `>` are read as XML.
 * Throws on a document that is not well-formed XML; the caller reports it as an invalid answer.
 */
export function readXmlPage(xml: string, offset: number): Page {
  const parser = new SaxesParser({ position: true });
  const items: string[] = [];
  let depth = 0;
  let itemStart = 0;
  let total: number | undefined;
  parser.on('opentagstart', () => {
    // Reported after `<name`: the tag begins at the last `<` before this point.
    if (depth === 1) itemStart = xml.lastIndexOf('<', parser.position - 1);
  });
  parser.on('opentag', (tag) => {
    if (depth === 0) total = countOf(tag.attributes['total_record_count']);
    depth += 1;
  });
  parser.on('closetag', () => {
    depth -= 1;
    if (depth === 1) items.push(xml.slice(itemStart, parser.position));
  });
  parser.write(xml).close();
  return { items, total, offset };
}

function countOf(value: unknown): number | undefined {
  return typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : undefined;
}
