import express from 'express';
import type { RequestHandler } from 'express';
import { InvalidEventError, parseXmlEvent } from 'svcws-listener';
import { findOperation } from './find-operation';
import type { OperationCodes } from './operation-codes';
import { badRequest } from './sandbox-error';

export interface RequestBodyParserOptions {
  readonly operations: readonly OperationCodes[];
  /** Largest body accepted (`10mb`); above it the answer is 413. */
  readonly limit: string;
}

interface ParserError {
  readonly type: string;
  readonly status: number;
}

function isParserError(error: unknown): error is ParserError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { type?: unknown }).type === 'string' &&
    typeof (error as { status?: unknown }).status === 'number'
  );
}

/**
 * spec §1 rule 2: request bodies come as JSON or XML. Only an operation that takes a body
 * (`body` in operation-codes.ts) reads one; an XML body becomes the object its JSON twin gives,
 * by the platform's XML conventions as the listener reads them (events/parse-xml-event.ts:
 * root unwrapped, `<rows><row>` to `row: [...]`, `desc` attributes to `{value, desc}`; values
 * stay text). An unreadable body is a 400 with the operation's own body code, never a code its
 * row lacks.
 */
export function createRequestBodyParser(options: RequestBodyParserOptions): RequestHandler {
  const json = express.json({ limit: options.limit, type: ['application/json', '+json'] });
  const text = express.text({
    limit: options.limit,
    type: ['application/xml', 'text/xml', '+xml'],
  });
  return (req, res, next) => {
    const operation = findOperation(options.operations, req.method, req.path);
    const bodyCode = operation?.body;
    if (bodyCode === undefined) {
      next();
      return;
    }
    const failed = (error: unknown): void => {
      if (isParserError(error) && error.status === 400) {
        next(badRequest(bodyCode, `The request body cannot be read: ${error.type}`));
      } else {
        next(error);
      }
    };
    const parseJson: RequestHandler = operation?.xmlOnly === true ? skip : json;
    parseJson(req, res, (jsonError?: unknown) => {
      if (jsonError !== undefined) {
        failed(jsonError);
        return;
      }
      text(req, res, (textError?: unknown) => {
        if (textError !== undefined) {
          failed(textError);
          return;
        }
        try {
          if (typeof req.body === 'string') res.locals.xmlRoot = rootNameOf(req.body);
          req.body = fromXml(req.body as unknown);
          next();
        } catch (error) {
          next(
            error instanceof InvalidEventError
              ? badRequest(bodyCode, `The XML body cannot be read: ${error.message}`)
              : error,
          );
        }
      });
    });
  };
}

const skip: RequestHandler = (_req, _res, next) => {
  next();
};

/** `<partner/>` or `<partner></partner>`: an element with nothing in it, the twin of `{}`. */
const EMPTY_ROOT = /^\s*(<\?xml[^>]*\?>)?\s*<([\w.:-]+)(\s[^>]*)?(\/>|>\s*<\/\2\s*>)\s*$/;
const ROOT_NAME = /^\s*(?:<\?[^>]*\?>\s*|<!--[\s\S]*?-->\s*)*<(?:[\w.-]+:)?([\w.-]+)/;

function fromXml(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  if (body.trim() === '') return undefined;
  return EMPTY_ROOT.test(body) ? {} : parseXmlEvent(body);
}

/** The root element's local name, for routes that care which document came (the letter update). */
function rootNameOf(text: string): string | undefined {
  return ROOT_NAME.exec(text)?.[1];
}
