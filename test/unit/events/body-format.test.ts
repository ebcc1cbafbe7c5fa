import { assertUtf8Charset, bodyFormatOf } from '../../../src/events/body-format';
import { RefusedDeliveryError } from '../../../src/events/refused-delivery-error';

describe('bodyFormatOf', () => {
  it.each([
    ['application/json', 'json'],
    ['application/json; charset=utf-8', 'json'],
    ['application/vnd.svc+json', 'json'],
    ['application/xml', 'xml'],
    ['text/xml; charset=UTF-8', 'xml'],
    ['application/atom+xml', 'xml'],
    ['APPLICATION/JSON', 'json'],
  ])('reads %s as %s', (contentType, format) => {
    expect(bodyFormatOf(contentType, '')).toBe(format);
  });

  it('sniffs the first non-blank character when there is no Content-Type', () => {
    expect(bodyFormatOf(undefined, ' \n {"id":1}')).toBe('json');
    expect(bodyFormatOf(undefined, '\t<webhook/>')).toBe('xml');
  });

  it.each([
    ['text/plain', 'x'],
    ['application/x-www-form-urlencoded', 'a=b'],
    [undefined, 'id=1'],
  ])('refuses %s as an unsupported media type', (contentType, text) => {
    expect(() => bodyFormatOf(contentType, text)).toThrow(RefusedDeliveryError);
    expect(() => bodyFormatOf(contentType, text)).toThrow(
      expect.objectContaining({ code: 'unsupported_media_type' }),
    );
  });

  it('refuses a charset other than UTF-8 as an unsupported charset', () => {
    expect(() => assertUtf8Charset('application/json; charset=iso-8859-1')).toThrow(
      expect.objectContaining({
        code: 'unsupported_charset',
        message: expect.stringMatching(/iso-8859-1/),
      }),
    );
    expect(() => assertUtf8Charset('application/json; charset="utf-8"')).not.toThrow();
  });
});
