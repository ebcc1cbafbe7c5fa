import type { Endpoint } from './endpoint';

/**
 * The most bytes a 2xx answer may have, per family of operation: a list page (100 items at most,
 * spec §8) and any other answer (one resource). A download streams to its target and has no cap.
 */
export interface BodyCaps {
  readonly list: number;
  readonly document: number;
}

/** Far above any page or resource the platform serves (docs/platform-shapes.md), far below harm. */
export const DEFAULT_BODY_CAPS: BodyCaps = { list: 32 * 1024 * 1024, document: 8 * 1024 * 1024 };

/** The cap of one row's answer. */
export function bodyCapOf(caps: BodyCaps, endpoint: Pick<Endpoint, 'list'>): number {
  return endpoint.list ? caps.list : caps.document;
}
