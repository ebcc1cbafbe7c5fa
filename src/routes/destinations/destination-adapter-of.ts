import type { AnyDestinationAdapter, DestinationAdapterList } from './destination-adapter';

/**
 * The adapter of `kind` in `adapters`. A route read with the same list always has one: a kind
 * without one means the caller read the routes file with another list.
 */
export function destinationAdapterOf(
  adapters: DestinationAdapterList,
  kind: string,
): AnyDestinationAdapter {
  const adapter = adapters.find((candidate) => candidate.kind === kind);
  if (adapter === undefined) {
    throw new Error(
      `no destination adapter of kind ${kind}: the routes were read with another list`,
    );
  }
  return adapter;
}
