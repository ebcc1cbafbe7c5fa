import { redactText, redactUrl } from '../src/redact-url';

describe('redactUrl', () => {
  it.each([
    ['https://h/svcws/v1/conf/jobs?apikey=abc', 'https://h/svcws/v1/conf/jobs?apikey=[redacted]'],
    ['https://h/x?limit=5&APIKEY=abc&offset=1', 'https://h/x?limit=5&APIKEY=[redacted]&offset=1'],
    ['https://h/x?ApiKey=a%2Fb#frag', 'https://h/x?ApiKey=[redacted]#frag'],
    ['https://h/x?apikey=a&apikey=b', 'https://h/x?apikey=[redacted]&apikey=[redacted]'],
    ['https://h/x?limit=5', 'https://h/x?limit=5'],
  ])('redacts %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('takes a URL object', () => {
    expect(redactUrl(new URL('https://h/x?apikey=abc'))).toBe('https://h/x?apikey=[redacted]');
  });
});

describe('redactText', () => {
  it('removes the literal secret and its URL-encoded form wherever it stands', () => {
    const text = 'connect failed for key k/+= (k%2F%2B%3D) at "https://h/?apikey=k%2F%2B%3D"';

    const redacted = redactText(text, ['k/+=']);

    expect(redacted).not.toContain('k/+=');
    expect(redacted).not.toContain('k%2F%2B%3D');
    expect(redacted).toContain('apikey=[redacted]');
  });
});
