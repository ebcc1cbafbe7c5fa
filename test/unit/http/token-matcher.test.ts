import {
  createTokenMatcher,
  secretsMatch,
  sha256Hex,
  tokenDigest,
} from '../../../src/http/token-matcher';

describe('the token check', () => {
  it('accepts the configured token and refuses another, a prefix and none', () => {
    const matches = createTokenMatcher('the-configured-token');
    expect(matches('the-configured-token')).toBe(true);
    expect(matches('another-token-of-same-len')).toBe(false);
    expect(matches('the-configured')).toBe(false);
    expect(matches('')).toBe(false);
    expect(matches(undefined)).toBe(false);
  });

  it('answers false, without throwing, for secrets of different lengths', () => {
    expect(secretsMatch(Buffer.from('abc'), Buffer.from('abcd'))).toBe(false);
    expect(secretsMatch(Buffer.from('abcd'), Buffer.from('abcd'))).toBe(true);
  });

  it('keeps a token as the SHA-256 hex a tokens file holds', () => {
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(tokenDigest('abc').toString('hex')).toBe(sha256Hex('abc'));
  });
});
