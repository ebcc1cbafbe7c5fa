import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordingHttpReceiver } from '../../../helpers/recording-http-receiver';

/** What one route received against what it should have: each expected id exactly once. */
export interface RouteTally {
  received: number;
  distinct: number;
  /** Expected ids never received (the first 20), and how many. */
  missing: { count: number; first: string[] };
  /** Ids received more than once (the first 20, with their count), and how many. */
  twice: { count: number; first: string[] };
  /** Ids received that the route should not have had (the first 20), and how many. */
  unexpected: { count: number; first: string[] };
}

export function tallyRoute(received: readonly string[], expected: ReadonlySet<string>): RouteTally {
  const counts = new Map<string, number>();
  for (const id of received) counts.set(id, (counts.get(id) ?? 0) + 1);
  const missing = [...expected].filter((id) => !counts.has(id));
  const twice = [...counts].filter(([, n]) => n > 1).map(([id, n]) => `${id} ×${String(n)}`);
  const unexpected = [...counts.keys()].filter((id) => !expected.has(id));
  const listed = (ids: string[]) => ({ count: ids.length, first: ids.slice(0, 20) });
  return {
    received: received.length,
    distinct: counts.size,
    missing: listed(missing),
    twice: listed(twice),
    unexpected: listed(unexpected),
  };
}

/** The event id of every request the receiver got on `path` (the route's X-Svc-Event-Id). */
export function receivedIds(receiver: RecordingHttpReceiver, path: string): string[] {
  return receiver.requests
    .filter((request) => request.path === path)
    .map((request) => String(request.headers['x-svc-event-id']));
}

/** The `id` of every line of the file route's `<day>.jsonl` files in `dir`. */
export async function archivedIds(dir: string): Promise<string[]> {
  const names = (await readdir(dir).catch(() => [])).filter((name) => name.endsWith('.jsonl'));
  const ids: string[] = [];
  for (const name of names.sort()) {
    const text = await readFile(join(dir, name), 'utf8');
    // The text after the last newline may be a line the route is still writing: not read yet.
    for (const line of text.split('\n').slice(0, -1)) {
      if (line !== '') ids.push(String((JSON.parse(line) as { id?: unknown }).id));
    }
  }
  return ids;
}
