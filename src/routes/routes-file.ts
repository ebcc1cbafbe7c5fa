import { z } from 'zod';
import { DESTINATION_ADAPTERS } from './destinations';
import type {
  DestinationAdapterList,
  DestinationChoiceOf,
} from './destinations/destination-adapter';
import type { HttpDestinationOptions } from './destinations/http';
import { RouteWhere } from './match-where';
import { RouteSend } from './route-send';
import { RouteCircuit } from './route-circuit';
import { isPersonalPath } from './is-personal-path';
import { templatePathsOf } from './render-template';
import { canonicalJson } from '../startup/canonical-json';
import { duplicateEntries } from '../startup/duplicate-entries';

const codes = z.array(z.string().min(1)).min(1, 'at least one value');

/** `match:` — every given condition must hold; `{}` (or no `match`) takes every event. */
export const RouteMatch = z.strictObject({
  /** Canonical actions; compared lower-cased, as the listener stores them. */
  action: codes.transform((values) => values.map((value) => value.toLowerCase())).optional(),
  /** `event.value`, e.g. LOAN_CREATED. */
  event: codes.optional(),
  /** `institution.value`, e.g. 01ABC_INST. */
  institution: codes.optional(),
  /** Conditions on any path of the canonical event (match-where.ts); every one must hold. */
  where: RouteWhere.optional(),
});
export type RouteMatch = z.infer<typeof RouteMatch>;

/**
 * `to:` — exactly one destination of `adapters`, read into `{ kind, options }` so the code finds
 * the adapter by its kind. Unknown keys are refused (a typo or a destination this version does
 * not have).
 */
function routeDestinationSchema<Adapters extends DestinationAdapterList>(
  adapters: Adapters,
): z.ZodType<DestinationChoiceOf<Adapters[number]>> {
  const kinds = adapters.map((adapter) => adapter.kind);
  const oneOf = z
    .strictObject(
      Object.fromEntries(adapters.map((adapter) => [adapter.kind, adapter.options.optional()])),
    )
    .refine((to) => Object.values(to).filter((value) => value !== undefined).length === 1, {
      message: `exactly one destination (${kinds.join(', ')})`,
      // After an unknown key (reported as an unknown destination), this would only repeat it.
      when: (payload) => payload.issues.length === 0,
    })
    .transform((to) => {
      const adapter = adapters.find(({ kind }) => to[kind] !== undefined);
      // No known destination: the issue is already reported (unknown key, or not exactly one).
      if (adapter === undefined) return z.NEVER;
      // The options were read by this adapter's own schema, under its own key.
      return { kind: adapter.kind, options: to[adapter.kind] } as DestinationChoiceOf<
        Adapters[number]
      >;
    });
  return oneOf;
}

export const RouteDestination = routeDestinationSchema(DESTINATION_ADAPTERS);
export type RouteDestination = z.infer<typeof RouteDestination>;

/** `retry:` — attempts in all (the first included); exponential backoff from `backoffMs`, with jitter. */
export const RouteRetry = z.strictObject({
  attempts: z.number().int().min(1).max(100).default(10),
  backoffMs: z.number().int().min(1).default(5000),
});
export type RouteRetry = z.infer<typeof RouteRetry>;

/** A route's fields; `to:` is one of the adapters' (routeSchema). */
const RouteFields = z.strictObject({
  name: z.string().regex(/^[a-z0-9-]{1,64}$/, 'lower-case letters, digits and - only (at most 64)'),
  match: RouteMatch.default({}),
  /** What is sent of each event (route-send.ts); absent: the canonical event. */
  send: RouteSend.optional(),
  to: RouteDestination,
  retry: RouteRetry.default({ attempts: 10, backoffMs: 5000 }),
  /** Deliveries per second at most, across every worker process (BullMQ's queue rate limit). */
  ratePerSecond: z.number().positive().optional(),
  /** Deliveries in flight at once per worker process. */
  concurrency: z.number().int().min(1).max(1000).default(16),
  /** The route's circuit breaker (route-circuit.ts); `off` for routes that must never pause. */
  circuit: RouteCircuit,
  /** Takes `send-test-event`'s events too (src/events/test-event.ts); by default it skips them. */
  testEvents: z.boolean().default(false),
});

/** A masked route must not put a personal value back in its URL or headers. */
function refuseMaskedTemplates(
  route: { send?: RouteSend | undefined; to: { kind: string; options: unknown } },
  context: z.RefinementCtx,
): void {
  if (route.send?.mask !== 'patron' || route.to.kind !== 'http') return;
  // Read by the http adapter's own schema under `to.http` (routeDestinationSchema).
  const { url, headers = {} } = route.to.options as HttpDestinationOptions;
  const templates: [readonly string[], string][] = [
    [['to', 'http', 'url'], url],
    ...Object.entries(headers).map(([name, value]): [readonly string[], string] => [
      ['to', 'http', 'headers', name],
      value,
    ]),
  ];
  for (const [path, template] of templates) {
    for (const field of templatePathsOf(template).filter(isPersonalPath)) {
      const message = `uses the personal field ${field} while send.mask is patron`;
      context.addIssue({ code: 'custom', path: [...path], message });
    }
  }
}

export const Route = RouteFields.superRefine(refuseMaskedTemplates);
export type Route = z.infer<typeof Route>;

/** A route whose `to:` is one of `adapters` (the same fields; `to` keeps its place). */
export function routeSchema<Adapters extends DestinationAdapterList>(adapters: Adapters) {
  return RouteFields.extend({ to: routeDestinationSchema(adapters) }).superRefine(
    refuseMaskedTemplates,
  );
}

/** A route read with any list of adapters (a test's own): what routing needs of a route. */
export type AnyRoute = z.infer<ReturnType<typeof routeSchema<DestinationAdapterList>>>;

/** The routes file (ROUTES_FILE) with `adapters`: the public contract documented in docs/routing.md. */
export function routesFileSchema<Adapters extends DestinationAdapterList>(adapters: Adapters) {
  return z
    .strictObject({ routes: z.array(routeSchema(adapters)) })
    .superRefine(uniqueNames)
    .superRefine(uniqueRules);
}

export const RoutesFile = routesFileSchema(DESTINATION_ADAPTERS);
export type RoutesFile = z.infer<typeof RoutesFile>;
/** The routes file read with `Adapters` (a test's own list). */
export type RoutesFileOf<Adapters extends DestinationAdapterList> = z.infer<
  ReturnType<typeof routesFileSchema<Adapters>>
>;

function uniqueNames(
  file: { routes: readonly { name: string }[] },
  context: z.RefinementCtx,
): void {
  for (const { index } of duplicateEntries(file.routes, (route) => route.name)) {
    context.addIssue({
      code: 'custom',
      path: ['routes', index, 'name'],
      message: 'duplicate route name',
    });
  }
}

/** What a route's rule is compared by: `match.where` read into a list, in the file's order. */
interface RouteRule {
  readonly name: string;
  readonly match?: { readonly where?: unknown } | undefined;
}

/**
 * A route's rule: everything but its name (destination and its options as substituted, match,
 * where:, send:, retry and the rest, defaults filled in), as text the order of keys does not
 * change. `where:` is read into a list in the order of its keys: sorted by path here, as a map.
 */
function ruleText({ name: _name, ...rule }: RouteRule): string {
  // The refinement runs even when a route's own fields did not parse (a where: that is still the
  // file's map, say): what is not a list is compared as written.
  const where: unknown = rule.match?.where;
  const sorted = Array.isArray(where)
    ? (where as { readonly path: string }[]).toSorted((a, b) => (a.path < b.path ? -1 : 1))
    : where;
  return canonicalJson({ ...rule, match: { ...rule.match, where: sorted } });
}

/**
 * Two routes with one rule under two names would deliver every event they take twice (two
 * queues, two deliveries, each with its own retries): refused, naming both.
 */
function uniqueRules(file: { routes: readonly RouteRule[] }, context: z.RefinementCtx): void {
  for (const { index, first } of duplicateEntries(file.routes, ruleText)) {
    const earlier = file.routes[first]?.name ?? '';
    context.addIssue({
      code: 'custom',
      path: ['routes', index],
      message: `the same rule as route "${earlier}" (everything but the name): every event it takes would be delivered twice`,
    });
  }
}
