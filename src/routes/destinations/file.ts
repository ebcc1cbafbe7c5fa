import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { CanonicalEvent } from '../../events/canonical-event';
import { DeliveryError } from '../delivery-error';
import { renderTemplate } from '../render-template';
import type { DeliveryPreview, Destination } from './destination';

/** `to: { file: { dir } }` */
export const FileDestinationOptions = z.strictObject({ dir: z.string().min(1) });
export type FileDestinationOptions = z.infer<typeof FileDestinationOptions>;

/** `<dir>/<YYYY-MM-DD>.jsonl`, the day in UTC at delivery. */
export function archivePathOf(
  options: FileDestinationOptions,
  event: CanonicalEvent,
  now = new Date(),
): string {
  return join(renderTemplate(options.dir, event), `${now.toISOString().slice(0, 10)}.jsonl`);
}

export function previewFile(
  options: FileDestinationOptions,
  event: CanonicalEvent,
): DeliveryPreview {
  const path = archivePathOf(options, event);
  return {
    kind: 'file',
    target: `file ${options.dir}`,
    address: `append to ${path}`,
    headers: {},
    body: JSON.stringify(event),
  };
}

interface PendingLine {
  readonly path: string;
  readonly line: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Appends one JSON line per event and fsyncs before the delivery counts, so a line that was
 * confirmed survives a crash of the machine. Deliveries that arrive while a write is under way are
 * written together, with one fsync for the lot (group commit): the cost of an fsync is shared by
 * every delivery of a burst instead of paid by each.
 */
export function createFileDestination(options: FileDestinationOptions): Destination {
  let queued: PendingLine[] = [];
  let writing = false;
  const madeDirs = new Set<string>();

  const writeBatch = async (batch: PendingLine[]): Promise<void> => {
    const byPath = new Map<string, PendingLine[]>();
    for (const pending of batch)
      byPath.set(pending.path, [...(byPath.get(pending.path) ?? []), pending]);
    for (const [path, lines] of byPath) {
      try {
        const dir = join(path, '..');
        if (!madeDirs.has(dir)) {
          await mkdir(dir, { recursive: true });
          madeDirs.add(dir);
        }
        const handle = await open(path, 'a');
        try {
          await handle.write(lines.map((pending) => pending.line).join(''));
          await handle.sync();
        } finally {
          await handle.close();
        }
        for (const pending of lines) pending.resolve();
      } catch (error) {
        madeDirs.clear();
        for (const pending of lines) pending.reject(error);
      }
    }
  };

  const drain = async (): Promise<void> => {
    if (writing) return;
    writing = true;
    try {
      while (queued.length > 0) {
        const batch = queued;
        queued = [];
        await writeBatch(batch);
      }
    } finally {
      writing = false;
    }
  };

  return {
    kind: 'file',
    target: `file ${options.dir}`,
    deliver: async (event) => {
      const path = archivePathOf(options, event);
      try {
        await new Promise<void>((resolve, reject) => {
          queued.push({ path, line: `${JSON.stringify(event)}\n`, resolve, reject });
          void drain();
        });
      } catch (error) {
        const code =
          (error as NodeJS.ErrnoException).code ??
          (error instanceof Error ? error.message : String(error));
        // A full disk or a permission fixed by an operator lets a later attempt pass.
        throw new DeliveryError(`file ${path}: ${code}`, { retryable: true, cause: error });
      }
    },
    close: async () => {
      await drain();
    },
  };
}
