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
});
