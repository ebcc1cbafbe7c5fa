import { RefusedDeliveryError } from './refused-delivery-error';

export type BodyFormat = 'json' | 'xml';

/**
 * The body's format from its Content-Type (spec §6.2: JSON or XML): `application/json` and `+json`
 * → JSON; `application/xml`, `text/xml` and `+xml` → XML; none → the first non-blank character
 * (`{` or `<`); anything else is refused as `unsupported_media_type`.
 */
export function bodyFormatOf(contentType: string | undefined, text: string): BodyFormat {
  if (contentType === undefined || contentType.trim() === '') {
    const first = /\S/.exec(text)?.[0];
    if (first === '{') return 'json';
    if (first === '<') return 'xml';
    throw new RefusedDeliveryError(
      'unsupported_media_type',
      'no Content-Type, and the body starts with neither { (JSON) nor < (XML)',
    );
  }
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) return 'json';
  if (mediaType === 'application/xml' || mediaType === 'text/xml' || mediaType.endsWith('+xml')) {
    return 'xml';
  }
  throw new RefusedDeliveryError(
    'unsupported_media_type',
    `Content-Type ${mediaType || '(empty)'} is not accepted; send application/json or application/xml`,
  );
}

/** Charsets other than UTF-8 are refused rather than guessed at. */
export function assertUtf8Charset(contentType: string | undefined): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new RefusedDeliveryError(
      'unsupported_charset',
      `charset ${charset} is not accepted; send UTF-8`,
    );
  }
}
