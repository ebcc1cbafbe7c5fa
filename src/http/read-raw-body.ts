import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { HttpError } from './http-error';

export interface BodyLimits {
  /** Bytes accepted from the socket (after chunked framing, before any decoding). */
  wireBytes: number;
  /** Bytes accepted after Content-Encoding is undone: what the signature and the parser see. */
  decodedBytes: number;
}

/**
 * Reads the request body with two caps: one on the bytes read from the wire, one on the bytes
 * decoded from them, so neither a long compressed stream (thousands of empty gzip members) nor a
 * small gzip bomb can run unbounded. gzip, deflate and br are undone here, since a refused
 * delivery would be lost. A body that never finishes is ended by the server's
 * requestTimeout (configure-server.ts): the request closes and this rejects.
 */
export function readRawBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  let decoder: Transform | undefined;
  try {
    decoder = decoderFor(req.headers['content-encoding']);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > limits.wireBytes) return Promise.reject(tooLarge());
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let wire = 0;
    let decoded = 0;
    let settled = false;
    const finish = (error: Error | undefined): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData).off('end', onEnd).off('close', onClose).off('error', onError);
      if (error === undefined) {
        resolve(Buffer.concat(chunks, decoded));
        return;
      }
      req.pause();
      decoder?.destroy();
      reject(error);
    };
    const take = (chunk: Buffer): void => {
      decoded += chunk.length;
      if (decoded > limits.decodedBytes) finish(tooLarge());
      else chunks.push(chunk);
    };
    const onData = (chunk: Buffer): void => {
      wire += chunk.length;
      if (wire > limits.wireBytes) finish(tooLarge());
      else if (decoder) decoder.write(chunk);
      else take(chunk);
    };
    const onEnd = (): void => {
      if (decoder) decoder.end();
      else finish(undefined);
    };
    const onClose = (): void => {
      if (!req.complete) finish(aborted());
    };
    const onError = (): void => finish(aborted());
    decoder?.on('data', take);
    decoder?.on('end', () => finish(undefined));
    decoder?.on('error', () =>
      finish(
        new HttpError(400, 'bad_encoding', 'the body does not decode as its Content-Encoding'),
      ),
    );
    req.on('data', onData).on('end', onEnd).on('close', onClose).on('error', onError);
  });
}

function decoderFor(header: string | undefined): Transform | undefined {
  const encoding = (header ?? '').trim().toLowerCase();
  switch (encoding) {
    case '':
    case 'identity':
      return undefined;
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      throw new HttpError(
        415,
        'unsupported_encoding',
        'Content-Encoding is not supported; send gzip, deflate, br or none',
      );
  }
}

function tooLarge(): HttpError {
  return new HttpError(413, 'body_too_large', 'body is larger than BODY_LIMIT allows');
}

function aborted(): HttpError {
  return new HttpError(400, 'aborted', 'the request ended before its body was read');
}
