import { createRequire } from 'node:module';
import type { parser as LogqlParser } from '@grafana/lezer-logql' with {
  'resolution-mode': 'import',
};
import type { SyntaxNode } from '@lezer/common' with { 'resolution-mode': 'import' };

// The grammar ships as an ES module with a CommonJS build (its `main`), which jest's CommonJS runs.
const { parser } = createRequire(__filename)('@grafana/lezer-logql') as {
  parser: typeof LogqlParser;
};

/** One step of a log pipeline, in its order: `| json`, or a label filter (string or number). */
export type PipelineStep =
  | { readonly kind: 'json' }
  | { readonly kind: 'match'; readonly label: string; readonly op: MatchOp; readonly value: string }
  | {
      readonly kind: 'number';
      readonly label: string;
      readonly op: NumberOp;
      readonly value: number;
    };

export type MatchOp = '=' | '!=' | '=~' | '!~';
export type NumberOp = '>' | '>=' | '<' | '<=' | '==' | '!=';

/**
 * The LogQL a dashboard panel runs, read with Grafana's own grammar (@grafana/lezer-logql) into the
 * subset our panels use: an optional vector aggregation (`sum by (…)`) over a range aggregation
 * (count_over_time, sum_over_time, avg_over_time, max_over_time, quantile_over_time … by (…)) of a
 * selector and a pipeline, with `unwrap`. Anything else is refused by name, never guessed.
 */
export interface LogqlPlan {
  readonly outer?: { readonly op: 'sum' | 'max' | 'min' | 'count'; readonly by: readonly string[] };
  readonly range: {
    readonly op:
      | 'count_over_time'
      | 'sum_over_time'
      | 'avg_over_time'
      | 'max_over_time'
      | 'quantile_over_time';
    readonly quantile?: number;
    readonly by?: readonly string[];
  };
  readonly selector: readonly {
    readonly label: string;
    readonly op: MatchOp;
    readonly value: string;
  }[];
  readonly pipeline: readonly PipelineStep[];
  readonly unwrap?: string;
}

/** Grafana's variables as Grafana fills them before Loki sees the query. */
export function interpolated(expr: string, variables: Readonly<Record<string, string>>): string {
  return expr.replace(/\$(__\w+|\w+)/g, (whole, name: string) => variables[name] ?? whole);
}

export class LogqlUnsupported extends Error {}

/** The plan of `query`; throws on a syntax error (the node and where) or an unsupported form. */
export function planOf(query: string): LogqlPlan {
  const tree = parser.parse(query);
  tree.iterate({
    enter: (node) => {
      if (node.type.isError) {
        throw new Error(
          `LogQL syntax error at ${String(node.from)}: …${query.slice(node.from, node.from + 30)}`,
        );
      }
    },
  });
  const metric = tree.topNode.getChild('Expr')?.getChild('MetricExpr');
  if (metric === null || metric === undefined) throw new LogqlUnsupported('not a metric query');
  const text = (node: SyntaxNode): string => query.slice(node.from, node.to);
  return planOfMetric(metric, text);
}

function planOfMetric(metric: SyntaxNode, text: (node: SyntaxNode) => string): LogqlPlan {
  const vector = metric.getChild('VectorAggregationExpr');
  if (vector !== null) {
    const op = text(required(vector.getChild('VectorOp'), 'VectorOp'));
    if (!['sum', 'max', 'min', 'count'].includes(op)) throw new LogqlUnsupported(`vector op ${op}`);
    const inner = required(vector.getChild('MetricExpr'), 'MetricExpr');
    const plan = planOfMetric(inner, text);
    if (plan.outer !== undefined) throw new LogqlUnsupported('nested vector aggregations');
    const by = labelsOf(vector.getChild('Grouping'), text);
    return { ...plan, outer: { op: op as 'sum', by } };
  }
  const range = required(metric.getChild('RangeAggregationExpr'), 'RangeAggregationExpr');
  const op = text(required(range.getChild('RangeOp'), 'RangeOp'));
  const known = [
    'count_over_time',
    'sum_over_time',
    'avg_over_time',
    'max_over_time',
    'quantile_over_time',
  ];
  if (!known.includes(op)) throw new LogqlUnsupported(`range op ${op}`);
  const quantile = range.getChild('Number');
  const logRange = required(range.getChild('LogRangeExpr'), 'LogRangeExpr');
  const grouping = range.getChild('Grouping');
  const unwrap = logRange.getChild('UnwrapExpr');
  return {
    range: {
      op: op as LogqlPlan['range']['op'],
      ...(quantile === null ? {} : { quantile: Number(text(quantile)) }),
      ...(grouping === null ? {} : { by: labelsOf(grouping, text) }),
    },
    selector: matchersOf(required(logRange.getChild('Selector'), 'Selector'), text),
    pipeline: stepsOf(logRange.getChild('PipelineExpr'), text),
    ...(unwrap === null
      ? {}
      : { unwrap: text(required(unwrap.getChild('Identifier'), 'unwrap label')) }),
  };
}

function required(node: SyntaxNode | null, what: string): SyntaxNode {
  if (node === null) throw new LogqlUnsupported(`no ${what}`);
  return node;
}

function labelsOf(grouping: SyntaxNode | null, text: (node: SyntaxNode) => string): string[] {
  if (grouping === null) return [];
  if (grouping.getChild('Without') !== null) throw new LogqlUnsupported('without (…)');
  const labels = grouping.getChild('Labels');
  return labels === null
    ? []
    : text(labels)
        .split(',')
        .map((one) => one.trim());
}

function unquoted(literal: string): string {
  return JSON.parse(
    literal.startsWith('`') ? JSON.stringify(literal.slice(1, -1)) : literal,
  ) as string;
}

const MATCH_OPS: Readonly<Record<string, MatchOp>> = { Eq: '=', Neq: '!=', Re: '=~', Nre: '!~' };
const NUMBER_OPS: Readonly<Record<string, NumberOp>> = {
  Gtr: '>',
  Gte: '>=',
  Lss: '<',
  Lte: '<=',
  Eql: '==',
  Neq: '!=',
};

function matcherOf(matcher: SyntaxNode, text: (node: SyntaxNode) => string) {
  const label = text(required(matcher.getChild('Identifier'), 'label'));
  const opNode = required(
    matcher.getChild('Eq') ??
      matcher.getChild('Neq') ??
      matcher.getChild('Re') ??
      matcher.getChild('Nre'),
    'matcher op',
  );
  const value = unquoted(text(required(matcher.getChild('String'), 'matcher value')));
  return { label, op: MATCH_OPS[opNode.name] ?? '=', value };
}

function matchersOf(selector: SyntaxNode, text: (node: SyntaxNode) => string) {
  const found: ReturnType<typeof matcherOf>[] = [];
  const cursor = selector.cursor();
  do {
    if (cursor.name === 'Matcher') found.push(matcherOf(cursor.node, text));
  } while (cursor.next() && cursor.from < selector.to);
  return found;
}

function stepsOf(pipeline: SyntaxNode | null, text: (node: SyntaxNode) => string): PipelineStep[] {
  if (pipeline === null) return [];
  const stages = [...pipeline.getChildren('PipelineExpr').flatMap((inner) => stepsOf(inner, text))];
  for (const stage of pipeline.getChildren('PipelineStage')) stages.push(stepOf(stage, text));
  return stages;
}

function stepOf(stage: SyntaxNode, text: (node: SyntaxNode) => string): PipelineStep {
  const parserNode = stage.getChild('LabelParser');
  if (parserNode !== null) {
    if (parserNode.getChild('Json') === null)
      throw new LogqlUnsupported(`parser ${text(parserNode)}`);
    return { kind: 'json' };
  }
  const filter = stage.getChild('LabelFilter');
  const number = filter?.getChild('NumberFilter');
  if (number !== null && number !== undefined) {
    const opNode = NUMBER_OPS_NODES.map((name) => number.getChild(name)).find(
      (node) => node !== null,
    );
    return {
      kind: 'number',
      label: text(required(number.getChild('Identifier'), 'label')),
      op: NUMBER_OPS[required(opNode ?? null, 'number op').name] ?? '==',
      value: Number(text(required(number.getChild('LiteralExpr'), 'number'))),
    };
  }
  const matcher = filter?.getChild('Matcher');
  if (matcher !== null && matcher !== undefined)
    return { kind: 'match', ...matcherOf(matcher, text) };
  const line = stage.getChild('LineFilter') ?? stage.getChild('LineFilters');
  throw new LogqlUnsupported(`pipeline stage ${text(line ?? stage)}`);
}

const NUMBER_OPS_NODES = Object.keys(NUMBER_OPS);
