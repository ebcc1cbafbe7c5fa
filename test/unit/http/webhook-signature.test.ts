import { createSignatureVerifier, signWebhookBody } from '../../../src/http/webhook-signature';

describe('webhook signature', () => {
  it('matches the known vector', () => {
    expect(signWebhookBody('itsasecret', 'The POST request body')).toBe(
      'e9SHoXK4MZrSGqhglMK4w+/u1pjYn0bfTEYtcFqj7CE=',
    );
    const verify = createSignatureVerifier(['itsasecret']);
    expect(
      verify(Buffer.from('The POST request body'), 'e9SHoXK4MZrSGqhglMK4w+/u1pjYn0bfTEYtcFqj7CE='),
    ).toBe(true);
  });

  it('accepts the previous secret during a rotation, and only configured secrets', () => {
    const verify = createSignatureVerifier(['new', 'old']);
    const body = Buffer.from('{"id":"1"}');
    expect(verify(body, signWebhookBody('old', body))).toBe(true);
    expect(verify(body, signWebhookBody('other', body))).toBe(false);
  });

  it('verifies over the bytes of non-ASCII UTF-8 bodies', () => {
    const body = Buffer.from('{"title":"Bibliothèque — 東京"}', 'utf8');
    const verify = createSignatureVerifier(['s']);
    expect(verify(body, signWebhookBody('s', body))).toBe(true);
    expect(verify(Buffer.from(body.toString('latin1'), 'utf8'), signWebhookBody('s', body))).toBe(
      false,
    );
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['garbage', 'not a signature'],
    ['without padding', 'e9SHoXK4MZrSGqhglMK4w+/u1pjYn0bfTEYtcFqj7CE'],
    ['base64url alphabet', 'e9SHoXK4MZrSGqhglMK4w-_u1pjYn0bfTEYtcFqj7CE='],
    ['non-canonical last character', 'e9SHoXK4MZrSGqhglMK4w+/u1pjYn0bfTEYtcFqj7CF='],
    ['with whitespace', ' e9SHoXK4MZrSGqhglMK4w+/u1pjYn0bfTEYtcFqj7CE='],
    ['a hex digest', 'a'.repeat(64)],
  ])('rejects a %s header', (_name, header) => {
    const verify = createSignatureVerifier(['itsasecret']);
    expect(verify(Buffer.from('The POST request body'), header)).toBe(false);
  });

  it('refuses to build a verifier without a secret', () => {
    expect(() => createSignatureVerifier([''])).toThrow(/at least one webhook secret/);
  });
});
