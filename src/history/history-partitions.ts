import type { SqlExecutor, SqlQuery } from './sql-executor';

/** The partitioned tables and the column their days are cut on. */
const TABLES = [
  { table: 'events', column: 'received_at' },
  { table: 'attempts', column: 'event_received_at' },
  { table: 'event_steps', column: 'event_received_at' },
] as const;

type PartitionedTable = (typeof TABLES)[number]['table'];

const DAY_MS = 86_400_000;

/** `2024-11-07` → `p20241107`: the suffix of that day's partitions. */
function suffixOf(day: string): string {
  return `p${day.replaceAll('-', '')}`;
}

/** The UTC day (`YYYY-MM-DD`) of a time. */
export function dayOf(time: Date | string): string {
  return new Date(time).toISOString().slice(0, 10);
}

/**
 * Creates the day's partitions of every table, patron and other, where missing: each in its own
 * short transaction, so it holds one table's lock at a time and cannot deadlock with a search
 * reading every partition. An advisory lock keeps two writers (or a writer and the pruner) from
 * racing on the catalog; IF NOT EXISTS makes it cheap to call again.
 */
export async function ensureDayPartitions(db: SqlExecutor, days: Iterable<string>): Promise<void> {
  for (const day of [...new Set(days)].sort()) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new Error(`not a day: ${day}`);
    const from = `${day}T00:00:00Z`;
    const to = new Date(Date.parse(from) + DAY_MS).toISOString();
    for (const { table } of TABLES) {
      for (const group of ['patron', 'other']) {
        const name = `${table}_${group}_${suffixOf(day)}`;
        await db.transaction(async (tx) => {
          await lockDdl(tx, db.schema);
          await tx.query(
            `CREATE TABLE IF NOT EXISTS ${name}
               PARTITION OF ${table}_${group} FOR VALUES FROM ('${from}') TO ('${to}')`,
          );
        });
      }
    }
  }
}

async function lockDdl(tx: SqlQuery, schema: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`svcws-history-ddl:${schema}`]);
}

/** One day partition: its table, whether it holds patron rows, and its day. */
export interface DayPartition {
  readonly name: string;
  readonly table: PartitionedTable;
  readonly patron: boolean;
  readonly day: string;
}

/** Every day partition there is, oldest first. */
export async function listDayPartitions(db: SqlQuery): Promise<DayPartition[]> {
  const result = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid
       JOIN pg_class p ON p.oid = i.inhparent
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema()
        AND p.relname = ANY($1::text[])`,
    [TABLES.flatMap(({ table }) => [`${table}_patron`, `${table}_other`])],
  );
  const partitions: DayPartition[] = [];
  for (const { name } of result.rows) {
    const match = /^(events|attempts|event_steps)_(patron|other)_p(\d{4})(\d{2})(\d{2})$/.exec(
      name,
    );
    if (match === null) continue;
    partitions.push({
      name,
      table: match[1] as PartitionedTable,
      patron: match[2] === 'patron',
      day: `${match[3] ?? ''}-${match[4] ?? ''}-${match[5] ?? ''}`,
    });
  }
  return partitions.sort((a, b) => a.day.localeCompare(b.day) || a.name.localeCompare(b.name));
}

/**
 * The partitions whose every row is older than its retention: a day is dropped once its end is
 * `days` or more before `now` (a row of 10:00 seven days ago stays until that day is whole).
 */
export function expiredPartitions(
  partitions: readonly DayPartition[],
  now: Date,
  retention: { readonly days: number; readonly patronDays: number },
): DayPartition[] {
  return partitions.filter((partition) => {
    const end = Date.parse(`${partition.day}T00:00:00Z`) + DAY_MS;
    const keep = (partition.patron ? retention.patronDays : retention.days) * DAY_MS;
    return end <= now.getTime() - keep;
  });
}

/** Drops partitions (DROP TABLE: no scan, no vacuum), under the same lock as their creation. */
export async function dropPartitions(
  db: SqlExecutor,
  partitions: readonly DayPartition[],
): Promise<void> {
  if (partitions.length === 0) return;
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `svcws-history-ddl:${db.schema}`,
    ]);
    for (const partition of partitions) await tx.query(`DROP TABLE IF EXISTS ${partition.name}`);
  });
}
