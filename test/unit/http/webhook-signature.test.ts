import {
  createSignatureVerifier,
  isWellFormedSignature,
} from '../../../src/http/webhook-signature';
import { signWebhookBody } from '../../../src/signature/sign-webhook-body';

const CURRENT = 'current-secret-0123456789';
const PREVIOUS = 'previous-secret-0123456789';

describe('webhook signature', () => {
  it('matches the known vector', () => {
    expect(signWebhookBody('itsasecret', 'The POST request body')).toBe(
      'e9SHoXK4MZrSGqhglMK4w+/u1pjYn0bfTEYtcFqj7CE=',
    );
    const verify = createSignatureVerifier({ current: CURRENT });
    const body = Buffer.from('The POST request body');
    expect(verify(body, signWebhookBody(CURRENT, body))).toBe('current');
  });

  it('says which secret matched during a rotation, and accepts only configured secrets', () => {
    const verify = createSignatureVerifier({ current: CURRENT, previous: PREVIOUS });
    const body = Buffer.from('{"id":"1"}');
    expect(verify(body, signWebhookBody(CURRENT, body))).toBe('current');
    expect(verify(body, signWebhookBody(PREVIOUS, body))).toBe('previous');
    expect(verify(body, signWebhookBody('another-secret-0123456789', body))).toBeUndefined();
  });

  it('verifies over the bytes of non-ASCII UTF-8 bodies', () => {
    const body = Buffer.from('{"title":"Bibliothèque — 東京"}', 'utf8');
    const verify = createSignatureVerifier({ current: CURRENT });
    expect(verify(body, signWebhookBody(CURRENT, body))).toBe('current');
    const mangled = Buffer.from(body.toString('latin1'), 'utf8');
    expect(verify(mangled, signWebhookBody(CURRENT, body))).toBeUndefined();
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
  ])('rejects a %s header, by its form alone', (_name, header) => {
    expect(isWellFormedSignature(header)).toBe(false);
    const verify = createSignatureVerifier({ current: CURRENT });
    expect(verify(Buffer.from('The POST request body'), header)).toBeUndefined();
  });

  it('takes the form of a real signature as well-formed', () => {
    expect(isWellFormedSignature('e9SHoXK4MZrSGqhglMK4w+/u1pjYn0bfTEYtcFqj7CE=')).toBe(true);
  });

  it.each([
    ['an empty current secret', { current: '' }],
    ['a 15-character current secret', { current: 'x'.repeat(15) }],
    ['a 15-character previous secret', { current: CURRENT, previous: 'x'.repeat(15) }],
  ])('refuses to build a verifier with %s', (_name, secrets) => {
    expect(() => createSignatureVerifier(secrets)).toThrow(/at least 16 characters/);
  });

  it('accepts a 16-character secret', () => {
    expect(() => createSignatureVerifier({ current: 'x'.repeat(16) })).not.toThrow();
  });
});
