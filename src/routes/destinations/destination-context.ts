import type { Logger } from '../../logger';

/** What every adapter factory gets besides its own options. */
export interface DestinationContext {
  /** The route's name: sent along (`X-Svc-Route`, a message header) and in log lines. */
  readonly route: string;
  readonly logger: Logger;
  /** REDIS_URL: the default of `redisStream.url`. */
  readonly redisUrl: string;
}
