/** One query's answer, the same from node-postgres and from PGlite. */
export interface SqlResult<R> {
  readonly rows: R[];
  readonly rowCount: number;
}

/** What runs one statement: a whole database, or one transaction of it. */
export interface SqlQuery {
  query: <R = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
  ) => Promise<SqlResult<R>>;
}

/**
 * The history's one view of its database, so the same SQL runs on a PostgreSQL server (`pg`) and
 * on PGlite in-process (the embedded default of the demo). Parameters are text, numbers, booleans
 * or null; anything structured goes in as one JSON text (`jsonb_to_recordset($1::jsonb)`), which
 * both drivers pass alike. Rows come back with timestamps as Date or text (read with `new Date`),
 * and int8 cast to int in SQL.
 */
export interface SqlExecutor extends SqlQuery {
  /** Runs `work` on one connection between BEGIN and COMMIT (ROLLBACK when it throws). */
  transaction: <T>(work: (tx: SqlQuery) => Promise<T>) => Promise<T>;
  /** Runs several statements without parameters (migrations). */
  exec: (text: string) => Promise<void>;
  close: () => Promise<void>;
  /** The schema every statement's unqualified names resolve in. */
  readonly schema: string;
  readonly embedded: boolean;
}
