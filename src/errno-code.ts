/** The `code` a Node or broker error carries (`ENOENT`, `EEXIST`, `NOT_FOUND`), when it is a string. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
