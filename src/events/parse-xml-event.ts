import { SaxesParser } from 'saxes';
import type { SaxesTagPlain } from 'saxes';
import { InvalidEventError } from './invalid-event-error';
import { rootFieldRules } from './kinds/event-kinds';
import type { FieldRules } from './kinds/field-rules';
import { MAX_NESTING_DEPTH } from './max-nesting-depth';
import { XmlJsonFormBuilder } from './xml-json-form-builder';
import { UNSAFE_KEYS } from './unsafe-keys';

const DECLARATION_REFUSED = 'XML with a DOCTYPE or ENTITY declaration is not accepted';

/** Malformed XML met by a parser that tracks no positions; read again to say where. */
class MalformedXml extends Error {}

/**
 * XML text → the event in its JSON form (the platform's XML conventions undone; see
 * XmlJsonFormBuilder). A streaming parser (saxes) reads it without recursion. A DOCTYPE — the
 * only place entities can be declared (billion laughs, external entities) — is refused when the
 * parser meets one, so a `<!DOCTYPE` inside CDATA or a comment is content like any other. The five
 * predefined entities and character references are decoded; any other entity is an error.
 */
export function parseXmlEvent(text: string, rules: FieldRules = rootFieldRules): unknown {
  try {
    return readXml(text, rules, false);
  } catch (error) {
    // Tracking line and column makes saxes several times slower: only a malformed body pays it.
    if (error instanceof MalformedXml) return readXml(text, rules, true);
    throw error;
  }
}

function readXml(text: string, rules: FieldRules, position: boolean): unknown {
  const builder = new XmlJsonFormBuilder(rules);
  const parser = new SaxesParser({ xmlns: false, position });
  parser.on('doctype', () => {
    throw new InvalidEventError(DECLARATION_REFUSED);
  });
  parser.on('error', (error) => {
    if (!position) throw new MalformedXml();
    throw new InvalidEventError(
      `body is not well-formed XML: ${faultKindOf(error.message)} (line ${parser.line}, column ${parser.column})`,
    );
  });
  parser.on('opentag', (tag) => {
    if (builder.depth >= MAX_NESTING_DEPTH) {
      throw new InvalidEventError(`body is nested deeper than ${MAX_NESTING_DEPTH} levels`);
    }
    builder.open(localName(tag.name), attributesOf(tag));
  });
  parser.on('text', (chunk) => builder.text(chunk));
  parser.on('cdata', (chunk) => builder.text(chunk));
  parser.on('closetag', () => builder.close());
  parser.write(text).close();

  const event = builder.result();
  if (event === undefined) {
    throw new InvalidEventError('the root element holds no fields');
  }
  return event;
}

/**
 * The kind of a saxes error without what it quotes: its messages are fixed phrases, some followed
 * by `: <a name or value from the body>` (`unclosed tag: jane.doe`), which is cut off.
 */
function faultKindOf(message: string): string {
  const phrase = message.replace(/^\d+:\d+: /, '');
  const colon = phrase.indexOf(':');
  return (colon < 0 ? phrase : phrase.slice(0, colon)).replace(/\.$/, '');
}

/** `svc:status` → `status`: the platform's payloads do not rely on namespaces. */
function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

/** Attributes by local name, without namespace declarations; undefined when there are none. */
function attributesOf(tag: SaxesTagPlain): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const name in tag.attributes) {
    if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
    const key = localName(name);
    if (UNSAFE_KEYS.has(key)) continue;
    (out ??= {})[key] = tag.attributes[name] ?? '';
  }
  return out;
}
