import { XMLBuilder } from 'fast-xml-parser';
import { pluralOf } from './plural-of';

/**
 * Serializes a JSON-form platform object in the platform's XML conventions (docs/platform-shapes.md):
 * `{value, desc}` → element text with a `desc` attribute; a `link` string → `link` attribute;
 * an array under a singular key → wrapped in its plural (`counter: [...]` → `<counters><counter>`);
 * null and undefined → omitted.
 */
export function toPlatformXml(
  rootName: string,
  value: Record<string, unknown>,
  rootAttributes: Record<string, string> = {},
): string {
  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    textNodeName: '#text',
    suppressEmptyNode: true,
    format: false,
  });
  const root = toNode(value);
  for (const [name, attribute] of Object.entries(rootAttributes)) root[`@_${name}`] = attribute;
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${String(builder.build({ [rootName]: root }))}`;
}

type XmlNode = Record<string, unknown>;

function isCode(
  value: Record<string, unknown>,
): value is { value: unknown; desc?: unknown; link?: unknown } {
  const keys = Object.keys(value);
  return (
    'value' in value &&
    keys.every((key) => key === 'value' || key === 'desc' || key === 'link') &&
    typeof value.value !== 'object'
  );
}

function toNode(value: Record<string, unknown>): XmlNode {
  if (isCode(value)) {
    const node: XmlNode = { '#text': String(value.value) };
    if (value.desc !== undefined && value.desc !== null) node['@_desc'] = String(value.desc);
    if (typeof value.link === 'string') node['@_link'] = value.link;
    return node;
  }
  const node: XmlNode = {};
  for (const [key, child] of Object.entries(value)) {
    if (child === null || child === undefined) continue;
    if (key === 'link' && typeof child === 'string') {
      node['@_link'] = child;
    } else if (Array.isArray(child)) {
      node[pluralOf(key)] = { [key]: child.map(toChild) };
    } else {
      node[key] = toChild(child);
    }
  }
  return node;
}

function toChild(child: unknown): unknown {
  if (child !== null && typeof child === 'object' && !Array.isArray(child)) {
    return toNode(child as Record<string, unknown>);
  }
  return typeof child === 'boolean' || typeof child === 'number' ? String(child) : child;
}
