import { createRequire } from 'node:module';
import path from 'node:path';
import { median } from './median';
import type { SignedBody } from './signed-bodies';

/** What the intake and the enqueuer of one compiled tree are, as far as this measure needs. */
interface Tree {
  createEventIntake: (options: {
    enqueue: (event: unknown) => Promise<unknown>;
  }) => (input: {
    body: Buffer;
    contentType: string;
    receivedAt: Date;
    requestId: string;
  }) => Promise<unknown>;
  createEventEnqueuer: (options: object) => (event: unknown) => Promise<unknown>;
}

/**
 * A queue that answers at once: what the enqueuer does around `queue.add` (the job, its options,
 * the read-back of the stored data) is measured, not Redis.
 */
const QUICK_QUEUE = {
  add: () => Promise.resolve(undefined),
  toKey: (id: string) => `bull:bench:${id}`,
  backend: { connection: { client: Promise.resolve({ hget: () => Promise.resolve(null) }) } },
};

/** The compiled tree whose `src/` is at `srcDir` (tsc's output of src/). */
export function loadTree(srcDir: string): Tree {
  // A built tree elsewhere on disk, found at run time: loaded as CommonJS, as tsc wrote it.
  const load = createRequire(__filename);
  const intake = load(path.join(srcDir, 'events/event-intake.js')) as Pick<
    Tree,
    'createEventIntake'
  >;
  const enqueuer = load(path.join(srcDir, 'events/enqueue-event.js')) as Pick<
    Tree,
    'createEventEnqueuer'
  >;
  return { ...intake, ...enqueuer };
}

/**
 * CPU per delivery of the intake (bytes → format → parse → canonical event → enqueuer, up to a
 * queue that answers at once) of each tree, in one process and without HTTP or Redis: batches of
 * `bodies` alternate between the trees for `rounds`; the median batch of each, µs per delivery.
 */
export async function intakeCpu(
  trees: Record<string, Tree>,
  bodies: readonly SignedBody[],
  contentType: string,
  rounds: number,
): Promise<Record<string, number>> {
  const runs = Object.fromEntries(Object.keys(trees).map((name) => [name, [] as number[]]));
  const intakes = Object.entries(trees).map(([name, tree]) => {
    const enqueue = tree.createEventEnqueuer({
      queue: QUICK_QUEUE,
      dedupWindowHours: 240,
      attempts: 8,
    });
    return [name, tree.createEventIntake({ enqueue })] as const;
  });
  // Round 0 warms the JIT up and is not counted.
  for (let round = 0; round <= rounds; round += 1) {
    for (const [name, intake] of intakes) {
      const since = process.cpuUsage();
      for (const one of bodies) {
        await intake({ body: one.body, contentType, receivedAt: new Date(), requestId: 'bench' });
      }
      const cpu = process.cpuUsage(since);
      if (round > 0) runs[name]?.push((cpu.user + cpu.system) / bodies.length);
    }
  }
  return Object.fromEntries(Object.entries(runs).map(([name, values]) => [name, median(values)]));
}
