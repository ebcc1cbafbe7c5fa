import type { RoutesRunEntry } from '../../routes/routes-run-registry';

/**
 * The routes the workers run, beside the routes the console read at its own start: what the routes
 * page says about them (src/console/pages/routes-page.ts).
 */
export interface RoutesRunView {
  /** The workers alive now (refreshed within the registry's TTL), each with what it runs. */
  readonly workers: readonly RoutesRunEntry[];
  /** The routes files' hashes the workers read: more than one, the workers disagree. */
  readonly hashes: readonly string[];
  /** The hash of the routes file the console read at its start (undefined: none, or unreadable). */
  readonly consoleHash: string | undefined;
  /** The workers read different routes files (more than one hash). */
  readonly workersDisagree: boolean;
  /** The workers agree on a routes file that is not the one the console read at its start. */
  readonly consoleDiffers: boolean;
  /** Routes some worker runs that the console's routes file did not have at its start. */
  readonly unknownToConsole: readonly { readonly name: string; readonly workers: string[] }[];
  /** The console's routes that no worker runs now (empty while no worker is registered). */
  readonly runByNoWorker: readonly string[];
}

/** Compares the workers' entries with the console's own routes (names) and file hash. */
export function routesRunView(
  workers: readonly RoutesRunEntry[],
  consoleRoutes: readonly string[],
  consoleHash: string | undefined,
): RoutesRunView {
  const runners = new Map<string, string[]>();
  for (const worker of workers) {
    for (const name of worker.routes) {
      runners.set(name, [...(runners.get(name) ?? []), worker.workerId]);
    }
  }
  const known = new Set(consoleRoutes);
  const hashes = [...new Set(workers.map((worker) => worker.hash))];
  return {
    workers,
    hashes,
    consoleHash,
    workersDisagree: hashes.length > 1,
    consoleDiffers: hashes.length === 1 && consoleHash !== hashes[0],
    unknownToConsole: [...runners]
      .filter(([name]) => !known.has(name))
      .map(([name, ids]) => ({ name, workers: ids })),
    runByNoWorker: workers.length === 0 ? [] : consoleRoutes.filter((name) => !runners.has(name)),
  };
}
