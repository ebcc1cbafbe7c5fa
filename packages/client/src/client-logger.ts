/**
 * What the client logs through: the two pino-style methods it calls (`logger.warn(fields, msg)`).
 * A pino logger fits as it is; so does any object with these methods, or none at all.
 */
export interface ClientLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  debug(fields: Record<string, unknown>, message: string): void;
}
