import type { z } from 'zod';
import type { CanonicalEvent } from '../../events/canonical-event';
import type { DeliveryPreview, Destination } from './destination';
import type { DestinationContext } from './destination-context';

/** Something a destination can see is wrong before the first event: the option at fault and why. */
export interface DestinationProblem {
  /** The option's path below `to.<kind>`, e.g. `dir`. */
  readonly field: string;
  /** Why, never quoting the option's value (it may hold a substituted secret). */
  readonly problem: string;
}

/**
 * One destination, as a record: everything the routes file, routing, `routes test` and the
 * start-up check need of it. Each adapter file in routes/destinations/ exports one, and
 * routes/destinations/index.ts lists them; nothing else names a kind.
 *
 * The functions are declared as methods on purpose: a list holds adapters of different options,
 * and a method parameter lets `DestinationAdapter<HttpDestinationOptions, 'http'>` stand where
 * `DestinationAdapter<unknown, string>` is expected. Routing only ever passes an adapter the
 * options its own schema produced (routes-file.ts pairs them by kind).
 */
export interface DestinationAdapter<Options, Kind extends string = string> {
  /** The key under `to:` in the routes file, and the `destination` of log lines. */
  readonly kind: Kind;
  /** Its options under `to.<kind>`, read (with defaults) once, at start-up. */
  readonly options: z.ZodType<Options>;
  /** The adapter of one route. Connections open lazily, on the first delivery. */
  create(options: Options, context: DestinationContext): Destination;
  /** What one delivery would send, built by the same code as the delivery; nothing is sent. */
  preview(
    options: Options,
    event: CanonicalEvent,
    context: Omit<DestinationContext, 'logger'>,
    /** What the route's `send:` made of the event (send-shaper.ts); the event itself when absent. */
    body?: string,
  ): DeliveryPreview;
  /**
   * The start-up check of a process that delivers, without reaching a broker (a directory that
   * must be writable): each problem found stops the start like a bad routes file.
   */
  prepare?(options: Options, context: DestinationContext): readonly DestinationProblem[];
}

/** An adapter of any kind and options: what a list holds. */
export type AnyDestinationAdapter = DestinationAdapter<unknown>;

/** A list of adapters: `DESTINATION_ADAPTERS` (index.ts), or a test's own. */
export type DestinationAdapterList = readonly AnyDestinationAdapter[];

/** A route's `to:` once read, for each adapter of `Adapter`: its kind and its parsed options. */
export type DestinationChoiceOf<Adapter> = Adapter extends AnyDestinationAdapter
  ? { kind: Adapter['kind']; options: z.output<Adapter['options']> }
  : never;
