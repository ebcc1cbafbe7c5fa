import type { Logger } from '../../logger';
import type { RedactSecrets } from '../create-secret-redactor';

/** What every adapter factory gets besides its own options. */
export interface DestinationContext {
  /** The route's name: sent along (`X-Svc-Route`, a message header) and in log lines. */
  readonly route: string;
  readonly logger: Logger;
  /** REDIS_URL: the default of `redisStream.url`. */
  readonly redisUrl: string;
  /**
   * Masks the values substituted into the routes file (loadRoutesFile). createDestination and
   * previewDelivery apply it to what an adapter returns; an adapter applies it to what it logs
   * itself. Without it only URL passwords are hidden.
   */
  readonly redactSecrets?: RedactSecrets;
}
