/** Words of PromQL that are not metric names where a name could stand. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression selects (a reading good enough for our own rules and
 * panels, not a parser): strings, label matchers, ranges, grouping label lists and Grafana
 * variables are removed first; what remains is an identifier not followed by `(` (a function).
 */
export function promqlMetricNames(expr: string): Set<string> {
  const text = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ');
  const names = new Set<string>();
  for (const match of text.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const [name] = match;
    const before = text[match.index - 1] ?? ' ';
    // 1e3, 0.5, 30d: a letter that continues a number is no name.
    if (/[0-9.]/.test(before)) continue;
    if (/^\s*\(/.test(text.slice(match.index + name.length))) continue;
    if (KEYWORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return names;
}

/**
 * The metric names an exposition (`GET /metrics`) declares: every `# TYPE` family, with the
 * series a histogram or summary family is scraped as.
 */
export function exportedMetricNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name = '', type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram')
      for (const end of ['_bucket', '_sum', '_count']) names.add(name + end);
    if (type === 'summary') for (const end of ['_sum', '_count']) names.add(name + end);
  }
  for (const [, name = ''] of exposition.matchAll(/^([A-Za-z_:][A-Za-z0-9_:]*)[{ ]/gm))
    names.add(name);
  return names;
}
