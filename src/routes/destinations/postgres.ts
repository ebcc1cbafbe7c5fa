import { Pool } from 'pg';
import { z } from 'zod';
import type { CanonicalEvent } from '../../events/canonical-event';
import { DeliveryError } from '../delivery-error';
import { redactUrlCredentials } from '../redact-url-credentials';
import type { DeliveryPreview, Destination } from './destination';
import type { DestinationAdapter } from './destination-adapter';

/** `schema.table` or `table`: plain names, so they can be put in SQL without quoting games. */
const TABLE = /^([a-z_][a-z0-9_]{0,62}\.)?[a-z_][a-z0-9_]{0,62}$/;

/** `to: { postgres: { url, table, timeoutMs? } }` */
export const PostgresDestinationOptions = z.strictObject({
  url: z.url({ protocol: /^postgres(ql)?$/ }),
  table: z.string().regex(TABLE, 'a table name, optionally schema.table (lower case, digits, _)'),
  /** Longest wait for the insert to be committed before the attempt counts as failed. */
  timeoutMs: z.number().int().positive().default(10_000),
});
export type PostgresDestinationOptions = z.infer<typeof PostgresDestinationOptions>;

export const postgresDestination: DestinationAdapter<PostgresDestinationOptions, 'postgres'> = {
  kind: 'postgres',
  options: PostgresDestinationOptions,
  create: (options) => createPostgresDestination(options),
  preview: (options, event, _context, body) => previewPostgres(options, event, body),
};

/**
 * The table a route writes, created when absent (docs/routing.md shows it). The key is the event
 * id with its institution: one row per event however often it is delivered.
 */
function createTableSql(table: string): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (
  event_id text NOT NULL,
  institution text NOT NULL DEFAULT '',
  action text NOT NULL,
  event_code text,
  event_time text NOT NULL,
  delivered_at timestamptz NOT NULL DEFAULT now(),
  body jsonb NOT NULL,
  PRIMARY KEY (event_id, institution)
)`;
}

function insertSql(table: string): string {
  return `INSERT INTO ${table} (event_id, institution, action, event_code, event_time, body)
VALUES ($1, $2, $3, $4, $5, $6::jsonb) ON CONFLICT (event_id, institution) DO NOTHING`;
}

function rowOf(event: CanonicalEvent, shaped: string | undefined): unknown[] {
  return [
    event.id,
    event.institution?.value ?? '',
    event.action,
    event.event?.value ?? null,
    event.time,
    shaped ?? JSON.stringify(event),
  ];
}

function previewPostgres(
  options: PostgresDestinationOptions,
  event: CanonicalEvent,
  shaped?: string,
): DeliveryPreview {
  const [id, institution, action, code, time, body] = rowOf(event, shaped).map(String);
  return {
    kind: 'postgres',
    target: targetOf(options),
    address: `INSERT INTO ${options.table} … ON CONFLICT (event_id, institution) DO NOTHING`,
    headers: {
      event_id: id ?? '',
      institution: institution ?? '',
      action: action ?? '',
      event_code: code ?? '',
      event_time: time ?? '',
    },
    body: body ?? '',
  };
}

/**
 * Inserts one row per event into the reporting database; a second delivery of the same event
 * (retry, replay) inserts nothing. The table is created if absent on the first delivery, so a
 * database that is down at start-up does not stop the worker; a table of another shape fails
 * every delivery with PostgreSQL's reason, not retried.
 */
export function createPostgresDestination(options: PostgresDestinationOptions): Destination {
  const target = targetOf(options);
  const pool = new Pool({
    connectionString: options.url,
    max: 4,
    connectionTimeoutMillis: options.timeoutMs,
    query_timeout: options.timeoutMs,
  });
  pool.on('error', () => undefined);
  let ready: Promise<unknown> | undefined;
  const ensureTable = (): Promise<unknown> => {
    ready ??= pool.query(createTableSql(options.table)).catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
  return {
    kind: 'postgres',
    target,
    deliver: async (event, shaped) => {
      try {
        await ensureTable();
        await pool.query(insertSql(options.table), rowOf(event, shaped));
      } catch (error) {
        throw deliveryErrorOf(error, target);
      }
    },
    close: () => pool.end(),
  };
}

/**
 * PostgreSQL's SQLSTATE decides: a table of another shape, a refused value or a row over a limit
 * (classes 22, 23, 42, 54) stays refused; anything else (connection, 53 resources, 57 shutdown, 08 connection) may pass.
 */
function deliveryErrorOf(error: unknown, target: string): DeliveryError {
  const code =
    typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
      ? error.code
      : '';
  const message = error instanceof Error ? error.message : String(error);
  const retryable = !/^(22|23|42|54)/.test(code);
  // A value PostgreSQL cannot store (22) or a row over its limits (54, an index row too large):
  // the event's fault, not the destination's (circuit).
  const field = /^(22|54)/.test(code) ? 'row' : undefined;
  return new DeliveryError(
    `${target}: ${redactUrlCredentials(message)}${code === '' ? '' : ` (${code})`}`,
    { retryable, cause: error, ...(field === undefined ? {} : { field }) },
  );
}

function targetOf(options: PostgresDestinationOptions): string {
  return `${redactUrlCredentials(options.url)} table ${options.table}`;
}
