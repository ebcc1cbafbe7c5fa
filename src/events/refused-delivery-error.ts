/**
 * Why a delivery whose signature held cannot become a queued event. A refusal is final: the
 * sender would send the same bytes again, so the listener answers 4xx and keeps the delivery as
 * rejected (src/http/webhook-routes.ts maps each code to its status).
 */
export type RefusalCode =
  | 'invalid_event'
  | 'invalid_body'
  | 'unsupported_media_type'
  | 'unsupported_charset'
  | 'wrong_institution';

/** A delivery refused by the intake; `code` is the machine name the answer and the metrics use. */
export class RefusedDeliveryError extends Error {
  readonly code: RefusalCode;
  constructor(code: RefusalCode, message: string) {
    super(message);
    this.name = 'RefusedDeliveryError';
    this.code = code;
  }
}
