import type { Request, Response } from 'express';
import { toPlatformXml } from 'svcws-listener';
import { formatOf } from './respond';

const RESULT_NAMESPACE = 'http://com/exlibris/urm/general/xmlbeans';

export interface ErrorDetails {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

/**
 * Sends the platform's `web_service_result` error body (docs/platform-shapes.md) in JSON or XML
 * per `Accept`, with a tracking id the way the platform stamps one on each error.
 */
export function sendError(
  req: Request,
  res: Response,
  { status, code, message }: ErrorDetails,
): void {
  const error = { errorCode: code, errorMessage: message, trackingId: trackingId() };
  res.status(status);
  if (formatOf(req) === 'xml') {
    res
      .type('application/xml')
      .send(
        toPlatformXml(
          'web_service_result',
          { errorsExist: true, errorList: { error } },
          { xmlns: RESULT_NAMESPACE },
        ),
      );
    return;
  }
  res.json({ errorsExist: true, errorList: { error: [error] }, result: null });
}

let sequence = 0;

/** `E01-<ddHHmmss>-<sequence>`: unique per process, enough to find a line in the log. */
function trackingId(): string {
  sequence += 1;
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(6, 14);
  return `E01-${stamp}-${String(sequence).padStart(6, '0')}`;
}
