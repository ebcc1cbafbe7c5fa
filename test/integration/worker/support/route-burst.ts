import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Queue } from 'bullmq';
import type { CanonicalEvent } from '../../../../src/events/canonical-event';
import { createEventEnqueuer } from '../../../../src/events/enqueue-event';
import { routeEvent } from '../../../component/routes/support/route-events';

/**
 * The routes of the kill-mid-burst tests: an archive in ${ARCHIVE_DIR} and an HTTP hook at
 * ${HOOK}, each with 5 quick attempts. Written to `<dir>/routes.yaml`; resolves with its path.
 */
export async function writeArchiveAndHookRoutes(dir: string): Promise<string> {
  const routesFile = join(dir, 'routes.yaml');
  await writeFile(
    routesFile,
    'routes:\n' +
      '  - name: archive\n    to: { file: { dir: "${ARCHIVE_DIR}" } }\n    retry: { attempts: 5, backoffMs: 100 }\n' +
      '  - name: indexer\n    to: { http: { url: "${HOOK}" } }\n    retry: { attempts: 5, backoffMs: 100 }\n',
  );
  return routesFile;
}

/** `count` LOAN events queued on `queue` as the listener queues them (5 quick attempts each). */
export async function enqueueRouteEvents(queue: Queue, count: number): Promise<CanonicalEvent[]> {
  const enqueue = createEventEnqueuer({
    queue,
    dedupWindowHours: 1,
    attempts: 5,
    backoffDelayMs: 100,
  });
  const events = Array.from({ length: count }, () => routeEvent());
  for (const event of events) await enqueue(event);
  return events;
}
