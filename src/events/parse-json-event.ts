import { InvalidEventError } from './invalid-event-error';

/** JSON text → value. The text was decoded as strict UTF-8 by the caller. */
export function parseJsonEvent(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidEventError(`body is not valid JSON: ${reason}`);
  }
}
