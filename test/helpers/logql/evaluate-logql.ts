import type { LogqlPlan, MatchOp, NumberOp, PipelineStep } from './logql-plan';

/** A captured log line as a shipper sends it to Loki: its stream labels and its JSON text. */
export interface ShippedLine {
  readonly labels: Readonly<Record<string, string>>;
  readonly line: Readonly<Record<string, unknown>>;
}

/**
 * A plan's result over `lines` taken as one window (the whole run): each group's value, keyed by
 * its grouping labels as `label=value,…` (empty for no grouping). Loki's meanings: `| json`
 * flattens nested fields with `_` and renames a field that is also a stream label
 * `<name>_extracted`; a number filter on a missing label keeps the line only for `!=`; a value
 * that is not a number is an error (as Loki's `__error__`, which fails a metric query).
 */
export function evaluateLogql(plan: LogqlPlan, lines: readonly ShippedLine[]): Map<string, number> {
  const samples = new Map<string, number[]>();
  const by = plan.range.by ?? plan.outer?.by ?? [];
  for (const shipped of lines) {
    if (!plan.selector.every((one) => matches(shipped.labels[one.label] ?? '', one.op, one.value)))
      continue;
    const labels = through(plan.pipeline, shipped);
    if (labels === undefined) continue;
    const key = by.map((label) => `${label}=${labels[label] ?? ''}`).join(',');
    const value = plan.unwrap === undefined ? 1 : unwrapped(labels, plan.unwrap);
    if (value === undefined) continue;
    samples.set(key, [...(samples.get(key) ?? []), value]);
  }
  return new Map([...samples].map(([key, values]) => [key, reduce(plan, values)]));
}

function through(
  pipeline: readonly PipelineStep[],
  shipped: ShippedLine,
): Record<string, string> | undefined {
  let labels: Record<string, string> = { ...shipped.labels };
  for (const step of pipeline) {
    if (step.kind === 'json') labels = { ...labels, ...extracted(shipped.line, shipped.labels) };
    else if (step.kind === 'match') {
      if (!matches(labels[step.label] ?? '', step.op, step.value)) return undefined;
    } else if (!numberMatches(labels[step.label], step.op, step.value, step.label))
      return undefined;
  }
  return labels;
}

/** `| json`: every field, nested ones as `a_b`, as strings; a stream label's name gets `_extracted`. */
function extracted(
  line: Readonly<Record<string, unknown>>,
  stream: Readonly<Record<string, string>>,
  prefix = '',
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(line)) {
    const name = `${prefix}${key}`;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      Object.assign(out, extracted(value as Record<string, unknown>, stream, `${name}_`));
    } else if (value !== null && value !== undefined) {
      const label = name in stream ? `${name}_extracted` : name;
      out[label] = typeof value === 'string' ? value : JSON.stringify(value);
    }
  }
  return out;
}

function matches(actual: string, op: MatchOp, value: string): boolean {
  // Loki's regular expressions are anchored at both ends.
  const re = (): boolean => new RegExp(`^(?:${value})$`).test(actual);
  switch (op) {
    case '=':
      return actual === value;
    case '!=':
      return actual !== value;
    case '=~':
      return re();
    case '!~':
      return !re();
  }
}

function numberMatches(
  actual: string | undefined,
  op: NumberOp,
  value: number,
  label: string,
): boolean {
  if (actual === undefined) return op === '!=';
  const number = Number(actual);
  if (actual === '' || Number.isNaN(number))
    throw new Error(`LogQL number filter on ${label}: "${actual}" is not a number`);
  switch (op) {
    case '>':
      return number > value;
    case '>=':
      return number >= value;
    case '<':
      return number < value;
    case '<=':
      return number <= value;
    case '==':
      return number === value;
    case '!=':
      return number !== value;
  }
}

function unwrapped(labels: Readonly<Record<string, string>>, label: string): number | undefined {
  const text = labels[label];
  if (text === undefined) return undefined;
  const number = Number(text);
  if (text === '' || Number.isNaN(number))
    throw new Error(`LogQL unwrap ${label}: "${text}" is not a number`);
  return number;
}

function reduce(plan: LogqlPlan, values: readonly number[]): number {
  switch (plan.range.op) {
    case 'count_over_time':
      return values.length;
    case 'sum_over_time':
      return values.reduce((sum, one) => sum + one, 0);
    case 'avg_over_time':
      return values.reduce((sum, one) => sum + one, 0) / values.length;
    case 'max_over_time':
      return Math.max(...values);
    case 'quantile_over_time':
      return quantile(plan.range.quantile ?? 0.5, values);
  }
}

/** Prometheus's φ-quantile: linear between the two closest ranks. */
function quantile(phi: number, values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = phi * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.min(sorted.length - 1, low + 1);
  const weight = rank - low;
  return (sorted[low] ?? Number.NaN) * (1 - weight) + (sorted[high] ?? Number.NaN) * weight;
}
