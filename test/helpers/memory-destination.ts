import { z } from 'zod';
import type { CanonicalEvent } from '../../src/events/canonical-event';
import { renderTemplate } from '../../src/routes/render-template';
import type { DestinationAdapter } from '../../src/routes/destinations/destination-adapter';

/** `to: { memory: { box, label? } }`: a destination that exists only in the test that made it. */
const MemoryDestinationOptions = z.strictObject({
  /** The box events are kept in; templates as in every destination (`loans-{institution}`). */
  box: z.string().min(1),
  /** A default, to show that the adapter's own defaults are applied when the file is read. */
  label: z.string().default('kept in memory'),
});
type MemoryDestinationOptions = z.infer<typeof MemoryDestinationOptions>;

export interface MemoryDestination {
  /** The record a destination file exports (routes/destinations/*.ts), registered the same way. */
  readonly adapter: DestinationAdapter<MemoryDestinationOptions, 'memory'>;
  /** The events delivered into `box` (rendered), in delivery order, with the route of each. */
  delivered(box: string): readonly { readonly route: string; readonly event: CanonicalEvent }[];
}

/**
 * A destination added the way a real one is: one adapter record, put in a list beside
 * DESTINATION_ADAPTERS. Its boxes live in this object, so two tests never share one. A box named
 * in `closedBoxes` is refused by its start-up check (`prepare`).
 */
export function createMemoryDestination(closedBoxes: readonly string[] = []): MemoryDestination {
  const boxes = new Map<string, { route: string; event: CanonicalEvent }[]>();
  const adapter: MemoryDestination['adapter'] = {
    kind: 'memory',
    options: MemoryDestinationOptions,
    create: (options, context) => ({
      kind: 'memory',
      target: `memory ${options.box}`,
      deliver: (event) => {
        const box = renderTemplate(options.box, event);
        boxes.set(box, [...(boxes.get(box) ?? []), { route: context.route, event }]);
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    }),
    preview: (options, event, context) => ({
      kind: 'memory',
      target: `memory ${options.box}`,
      address: `box ${renderTemplate(options.box, event)} (${options.label})`,
      headers: { route: context.route },
      body: JSON.stringify(event),
    }),
    prepare: (options) =>
      closedBoxes.includes(options.box) ? [{ field: 'box', problem: 'the box is closed' }] : [],
  };
  return { adapter, delivered: (box) => boxes.get(box) ?? [] };
}
