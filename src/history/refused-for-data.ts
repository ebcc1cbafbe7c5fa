/**
 * Whether PostgreSQL refused a statement for the data it carried, so writing the same record again
 * can never succeed: SQLSTATE class 22 (data exception: invalid JSON, a number out of range), 54
 * (program limit exceeded: an index row too large) or 23 (integrity constraint) other than 23505,
 * the unique conflict the writer's ON CONFLICT expects. Anything else — a refused connection, a
 * server shutting down (57P01), a lost connection (08xxx) — is the database, not the record.
 */
export function refusedForData(error: unknown): error is Error & { code: string } {
  const code = sqlStateOf(error);
  if (code === undefined) return false;
  if (code.startsWith('22') || code.startsWith('54')) return true;
  return code.startsWith('23') && code !== '23505';
}

/** A SQLSTATE is five characters of digits and capitals; a Node errno (ECONNREFUSED) is not one. */
export function sqlStateOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const { code } = error;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
