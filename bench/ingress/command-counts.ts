/**
 * Redis commands per unit of work, by command, from `INFO commandstats` (after a
 * `CONFIG RESETSTAT`), of one server or several joined (a cluster's primaries: summed); the
 * bench's own CONFIG, INFO and ROLE calls left out.
 */
export function commandCounts(info: string, units: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    const [, name = '', calls = '0'] = match;
    // Redis 7 names a subcommand `config|resetstat`.
    const command = name.split('|')[0];
    if (command === 'config' || command === 'info' || command === 'role') continue;
    counts.set(name, (counts.get(name) ?? 0) + Number(calls) / units);
  }
  return counts;
}

/** The counts as one line, most called first: `evalsha 3.00, xadd 1.00, …` and their total. */
export function commandText(counts: ReadonlyMap<string, number>): string {
  const total = [...counts.values()].reduce((sum, calls) => sum + calls, 0);
  const each = [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([name, calls]) => `${name} ${calls.toFixed(2)}`)
    .join(', ');
  return `${total.toFixed(2)} (${each})`;
}
