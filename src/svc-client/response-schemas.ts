import type { z } from 'zod';
import { JobInstance } from './job-instance';

/**
 * Routes whose JSON answer the client checks and types. Any other route resolves to `unknown`
 * (the spec does not show the bodies, §2): the caller narrows it.
 */
export const responseSchemas = {
  'GET /conf/jobs/{job_id}/instances/{instance_id}': JobInstance,
} as const satisfies Readonly<Record<string, z.ZodType>>;

export type TypedRoute = keyof typeof responseSchemas;

/** The parsed answer of `route`: typed where a schema is listed, `unknown` otherwise. */
export type ResponseOf<R extends string> = R extends TypedRoute
  ? z.output<(typeof responseSchemas)[R]>
  : unknown;

const byRoute: ReadonlyMap<string, z.ZodType> = new Map(Object.entries(responseSchemas));

export function responseSchemaOf(route: string): z.ZodType | undefined {
  return byRoute.get(route);
}
