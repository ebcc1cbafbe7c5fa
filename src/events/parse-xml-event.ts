import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { InvalidEventError } from './invalid-event-error';
import { xmlNodeToJsonForm } from './xml-node-to-json-form';

/** A DOCTYPE can declare entities (billion laughs, external entities): refused before any parsing. */
const DECLARATION = /<!\s*(DOCTYPE|ENTITY)/i;

const PREDEFINED: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
};

/**
 * Entity processing is off in the parser (issue 2, ingress 3), so the five predefined entities and
 * numeric character references — which are not declarations and cannot expand — are decoded here.
 */
function decodeReferences(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return PREDEFINED[ref] ?? whole;
  });
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  cdataPropName: '#cdata',
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  removeNSPrefix: true,
  trimValues: true,
  maxNestedTags: 64,
  tagValueProcessor: (_name, value) => decodeReferences(value),
  attributeValueProcessor: (_name, value) => decodeReferences(value),
});

/**
 * XML text → the event in its JSON form (the platform's XML conventions undone): the root element
 * unwrapped, `desc` attributes to `{value, desc}`, `link` attributes to `link` fields, wrapped lists
 * (`<counters><counter>`) to the singular array key (`counter`).
 */
export function parseXmlEvent(text: string): unknown {
  if (DECLARATION.test(text)) {
    throw new InvalidEventError('XML with a DOCTYPE or ENTITY declaration is not accepted');
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    throw new InvalidEventError(
      `body is not well-formed XML: ${msg} (line ${line}, column ${col})`,
    );
  }
  let document: unknown;
  try {
    document = parser.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidEventError(`body is not well-formed XML: ${reason}`);
  }
  const roots = document !== null && typeof document === 'object' ? Object.entries(document) : [];
  const root = roots[0];
  if (roots.length !== 1 || root === undefined) {
    throw new InvalidEventError('XML body must have exactly one root element');
  }
  const event = xmlNodeToJsonForm(root[1]);
  if (event === null || typeof event !== 'object' || Array.isArray(event)) {
    throw new InvalidEventError(`the root element <${root[0]}> holds no fields`);
  }
  return event;
}
