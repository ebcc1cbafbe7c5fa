import type { z } from 'zod';
import { consoleError } from './console-error';
import type { HistoryScope } from './console-history';

/** A request's part read by its schema, or 400 naming the first field at fault. */
export function parsed<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue === undefined ? [] : issue.path.map(String);
  throw consoleError.badField([where, ...path].join('.'), issue?.message ?? 'invalid');
}

/** 403 unless the principal is an operator. */
export function needsOperator(scope: HistoryScope, action: string): void {
  if (scope.role !== 'operator') throw consoleError.role(action);
}
