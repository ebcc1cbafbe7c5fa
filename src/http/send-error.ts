import type { Response } from 'express';
import type { HttpError } from './http-error';

/** Every error answer is JSON: `{"status": 400, "error": "invalid_event", "message": "id is missing"}`. */
export function sendError(res: Response, error: HttpError): void {
  res
    .status(error.status)
    .json({ status: error.status, error: error.code, message: error.message });
}
