import { randomInt } from 'node:crypto';
import type { CanonicalEvent } from '../../../../src/events/canonical-event';
import { createLogger } from '../../../../src/logger';
import type { Logger } from '../../../../src/logger';

/** A canonical event as the listener stores it; a fresh id unless given. */
export function routeEvent(overrides: Partial<CanonicalEvent> = {}): CanonicalEvent {
  return {
    id: String(randomInt(1, 2 ** 47)),
    action: 'loan',
    time: '2025-03-01T10:00:00Z',
    institution: { value: '01ABC_INST' },
    event: { value: 'LOAN_CREATED', desc: 'Loan created' },
    item_loan: { loan_id: '234001', user_id: 'u-1' },
    meta: { format: 'json', receivedAt: new Date().toISOString(), requestId: 'r-1' },
    ...overrides,
  };
}

export const silentLogger: Logger = createLogger({ level: 'silent', name: 'test' });

/** Resolves once `check` holds, polling; rejects with `what` after `ms`. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  what: string,
  ms = 10_000,
): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
