import { pluralOf } from '../platform-xml/plural-of';

type Node = Record<string, unknown>;

const TEXT = '#text';
const CDATA = '#cdata';
const ATTRIBUTE = '@_';

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * One parsed XML element (fast-xml-parser's object form) → its JSON form, following the platform's
 * XML conventions (docs/platform-shapes.md). Values stay strings; typing is normalizeEvent's job.
 */
export function xmlNodeToJsonForm(node: unknown): unknown {
  if (!isNode(node)) return node;
  const attributes = Object.entries(node).filter(([key]) => key.startsWith(ATTRIBUTE));
  const children = Object.entries(node).filter(
    ([key]) => !key.startsWith(ATTRIBUTE) && key !== TEXT && key !== CDATA,
  );
  const text = textOf(node);

  if (children.length === 0) {
    // A leaf: `<status desc="Done">DONE</status>` → {value, desc}; a bare leaf → its text.
    if (attributes.length === 0) return text;
    const out: Node = { value: text };
    for (const [key, value] of attributes) out[key.slice(ATTRIBUTE.length)] = value;
    return out;
  }

  const out: Node = {};
  for (const [key, value] of attributes) out[key.slice(ATTRIBUTE.length)] = value;
  for (const [name, raw] of children) {
    const wrapped = unwrapList(name, raw);
    if (wrapped) {
      out[wrapped.key] = wrapped.items.map(xmlNodeToJsonForm);
    } else {
      out[name] = Array.isArray(raw) ? raw.map(xmlNodeToJsonForm) : xmlNodeToJsonForm(raw);
    }
  }
  return out;
}

function textOf(node: Node): string {
  const text = node[TEXT];
  const cdata = node[CDATA];
  return `${typeof text === 'string' ? text : ''}${typeof cdata === 'string' ? cdata : ''}`;
}

/** `<counters><counter/>…</counters>`: an element named the plural of its only child's name. */
function unwrapList(name: string, raw: unknown): { key: string; items: unknown[] } | undefined {
  if (!isNode(raw)) return undefined;
  const keys = Object.keys(raw);
  const only = keys[0];
  if (keys.length !== 1 || only === undefined || only.startsWith(ATTRIBUTE) || only === TEXT) {
    return undefined;
  }
  if (pluralOf(only) !== name) return undefined;
  const items = raw[only];
  return { key: only, items: Array.isArray(items) ? items : [items] };
}
