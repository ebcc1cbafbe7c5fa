import { parseXmlEvent } from '../../../src/events/parse-xml-event';
import { InvalidEventError } from '../../../src/events/invalid-event-error';

describe('parseXmlEvent', () => {
  it('refuses a DOCTYPE with entity declarations before parsing', () => {
    const bomb =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>' +
      '<webhook><id>&lol2;</id></webhook>';
    expect(() => parseXmlEvent(bomb)).toThrow(
      new InvalidEventError('XML with a DOCTYPE or ENTITY declaration is not accepted'),
    );
  });

  it('refuses an external entity reference', () => {
    const xxe =
      '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><webhook><id>&x;</id></webhook>';
    expect(() => parseXmlEvent(xxe)).toThrow(/DOCTYPE or ENTITY/);
  });

  it('names the line of malformed XML', () => {
    expect(() => parseXmlEvent('<webhook>\n<id>1</idx>\n</webhook>')).toThrow(
      /not well-formed XML: .* \(line 2, column \d+\)/,
    );
  });

  it('refuses a document with no root element', () => {
    expect(() => parseXmlEvent('<?xml version="1.0"?>')).toThrow(InvalidEventError);
  });

  it('unwraps the root and applies desc and link attributes', () => {
    expect(
      parseXmlEvent('<webhook><a desc="D">V</a><b link="L"><c>1</c></b><d>x</d></webhook>'),
    ).toEqual({ a: { value: 'V', desc: 'D' }, b: { link: 'L', c: '1' }, d: 'x' });
  });

  it('turns a wrapped list into the singular array key, also with one element', () => {
    expect(parseXmlEvent('<webhook><libraries><library>A</library></libraries></webhook>')).toEqual(
      {
        library: ['A'],
      },
    );
  });

  it('leaves an unknown entity reference as text rather than expanding anything', () => {
    expect(parseXmlEvent('<webhook><a>&amp;lt; &#65;</a></webhook>')).toEqual({ a: '&lt; A' });
  });

  // The refusal was a text search, which also refused content.
  it('accepts <!DOCTYPE and <!ENTITY inside CDATA and comments as content', () => {
    const xml =
      '<?xml version="1.0"?><!-- <!DOCTYPE x [<!ENTITY y "z">]> --><webhook>' +
      '<id>1</id><note><![CDATA[<!DOCTYPE html><!ENTITY a "b">]]></note></webhook>';
    expect(parseXmlEvent(xml)).toEqual({ id: '1', note: '<!DOCTYPE html><!ENTITY a "b">' });
  });

  it('refuses a DOCTYPE without an internal subset too', () => {
    expect(() =>
      parseXmlEvent('<!DOCTYPE webhook SYSTEM "x.dtd"><webhook><id>1</id></webhook>'),
    ).toThrow(/DOCTYPE or ENTITY/);
  });

  it('refuses a reference to an entity that is not predefined', () => {
    expect(() => parseXmlEvent('<webhook><a>&x;</a></webhook>')).toThrow(/not well-formed XML/);
  });

  // Values were trimmed (trimValues) while JSON kept the same whitespace.
  it('keeps text as sent and ignores whitespace between elements', () => {
    const xml =
      '<webhook>\n  <a>  padded\n</a>\n  <b>\n    <c> x </c>\n  </b>\n  <d>   </d>\n</webhook>';
    expect(parseXmlEvent(xml)).toEqual({ a: '  padded\n', b: { c: ' x ' }, d: '   ' });
  });

  it('keeps CDATA text byte for byte, with its line breaks and indentation', () => {
    const marc = '<record>\n  <controlfield tag="001">991</controlfield>\n</record>';
    expect(parseXmlEvent(`<webhook><x><![CDATA[${marc}]]></x></webhook>`)).toEqual({ x: marc });
  });

  it('reads an empty element as an empty string, or as {} and [] where a kind knows an object, a code or a list', () => {
    const xml =
      '<webhook><a/><institution/><webhook_user><user/></webhook_user>' +
      '<job_instance><job_info></job_info><counters/><status> </status></job_instance></webhook>';
    expect(parseXmlEvent(xml)).toEqual({
      a: '',
      institution: {},
      webhook_user: { user: {} },
      job_instance: { job_info: {}, counter: [], status: {} },
    });
  });

  it('makes repeated elements a list and strips namespace prefixes', () => {
    const xml = '<w:webhook xmlns:w="urn:x" xmlns="urn:y"><w:a>1</w:a><a>2</a><a>3</a></w:webhook>';
    expect(parseXmlEvent(xml)).toEqual({ a: ['1', '2', '3'] });
  });

  it('refuses nesting deeper than 200 elements without recursion, and accepts 200', () => {
    const deep = (n: number): string => `${'<a>'.repeat(n - 1)}<b>1</b>${'</a>'.repeat(n - 1)}`;
    expect(() => parseXmlEvent(deep(200))).not.toThrow();
    expect(() => parseXmlEvent(deep(201))).toThrow(
      new InvalidEventError('body is nested deeper than 200 levels'),
    );
    expect(() => parseXmlEvent(deep(3000))).toThrow(/nested deeper than 200/);
  });

  it('never copies __proto__ elements or attributes into the JSON form', () => {
    const event = parseXmlEvent(
      '<webhook><__proto__><polluted>1</polluted></__proto__><a __proto__="x">v</a></webhook>',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(event).toEqual({ a: 'v' });
    expect(Object.keys(event as object)).toEqual(['a']);
  });
});
