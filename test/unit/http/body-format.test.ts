import { assertUtf8Charset, bodyFormatOf } from '../../../src/http/body-format';
import { HttpError } from '../../../src/http/http-error';

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
  ])('answers 415 for %s', (contentType, text) => {
    expect(() => bodyFormatOf(contentType, text)).toThrow(HttpError);
    try {
      bodyFormatOf(contentType, text);
    } catch (error) {
      expect((error as HttpError).status).toBe(415);
    }
  });

  it('refuses a charset other than UTF-8 with 415', () => {
    expect(() => assertUtf8Charset('application/json; charset=iso-8859-1')).toThrow(/iso-8859-1/);
    expect(() => assertUtf8Charset('application/json; charset="utf-8"')).not.toThrow();
  });
});
