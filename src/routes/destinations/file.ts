import { accessSync, constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { z } from 'zod';
import type { CanonicalEvent } from '../../events/canonical-event';
import { DeliveryError, noAnswerWithin } from '../delivery-error';
import { renderTemplate } from '../render-template';
import type { DeliveryPreview, Destination } from './destination';
import type { DestinationAdapter, DestinationProblem } from './destination-adapter';
import { errnoCode } from '../../errno-code';
import { makeDirectory, makeDirectorySync } from './make-directory';
import { withTimeout } from '../../with-timeout';

/** `to: { file: { dir } }` */
export const FileDestinationOptions = z.strictObject({
  dir: z.string().min(1),
  /** Longest wait for the line to be written and fsync'd (a hung disk or NFS mount). */
  timeoutMs: z.number().int().positive().default(10_000),
});
export type FileDestinationOptions = z.infer<typeof FileDestinationOptions>;

export const fileDestination: DestinationAdapter<FileDestinationOptions, 'file'> = {
  kind: 'file',
  options: FileDestinationOptions,
  create: createFileDestination,
  preview: (options, event, _context, body) => previewFile(options, event, body),
  prepare: archiveDirProblems,
};

/**
 * At start-up: the part of `dir` before any `{…}` template is created and must be writable, so a
 * routes file pointing at a directory that can never be written stops the start instead of
 * filling the route's failed set. The problem names the errno code (ENOTDIR, EACCES, EROFS,
 * ENOENT, …), never the path: it may come from a `${VAR}`.
 */
function archiveDirProblems(options: FileDestinationOptions): DestinationProblem[] {
  const parts = options.dir.split(sep);
  const templated = parts.findIndex((part) => /\{(action|event|institution|id)\}/.test(part));
  const fixed = templated === -1 ? options.dir : parts.slice(0, templated).join(sep);
  if (fixed === '') return [];
  try {
    makeDirectorySync(fixed);
    accessSync(fixed, constants.W_OK | constants.X_OK);
    return [];
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    return [{ field: 'dir', problem: `the directory cannot be created or written (${code})` }];
  }
}

/** `<dir>/<YYYY-MM-DD>.jsonl`, the day in UTC at delivery. */
function archivePathOf(
  options: FileDestinationOptions,
  event: CanonicalEvent,
  now = new Date(),
): string {
  // Most archives name one directory: no template to render for each event then.
  const dir = options.dir.includes('{') ? renderTemplate(options.dir, event) : options.dir;
  return join(dir, `${now.toISOString().slice(0, 10)}.jsonl`);
}

function previewFile(
  options: FileDestinationOptions,
  event: CanonicalEvent,
  shaped?: string,
): DeliveryPreview {
  const path = archivePathOf(options, event);
  return {
    kind: 'file',
    target: `file ${options.dir}`,
    address: `append to ${path}`,
    headers: {},
    body: shaped ?? JSON.stringify(event),
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
  const lines = createGroupCommit();
  return {
    kind: 'file',
    target: `file ${options.dir}`,
    deliver: async (event, shaped) => {
      const path = archivePathOf(options, event);
      const written = lines.append(path, `${shaped ?? JSON.stringify(event)}\n`);
      try {
        await withTimeout(written, options.timeoutMs, () =>
          noAnswerWithin(`file ${path}`, options.timeoutMs, 'line written and fsynced'),
        );
      } catch (error) {
        if (error instanceof DeliveryError) throw error;
        // A full disk or a permission fixed by an operator lets a later attempt pass.
        throw new DeliveryError(`file ${path}: ${codeOf(error)}`, {
          retryable: true,
          cause: error,
        });
      }
    },
    close: () => lines.drain(),
  };
}

interface GroupCommit {
  /** Resolves once the line is written and fsync'd, with the lines queued beside it. */
  append(path: string, line: string): Promise<void>;
  /** Resolves once every line queued so far is written. */
  drain(): Promise<void>;
}

/** One write at a time; lines queued meanwhile form the next batch, one write and fsync per file. */
function createGroupCommit(): GroupCommit {
  let queued: PendingLine[] = [];
  let writing = false;
  const madeDirs = new Set<string>();

  const writeBatch = async (batch: PendingLine[]): Promise<void> => {
    const byPath = new Map<string, PendingLine[]>();
    for (const pending of batch) {
      const same = byPath.get(pending.path);
      if (same === undefined) byPath.set(pending.path, [pending]);
      else same.push(pending);
    }
    for (const [path, lines] of byPath) {
      try {
        await appendAndSync(path, lines.map((pending) => pending.line).join(''), madeDirs);
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
    append: (path, line) =>
      new Promise<void>((resolve, reject) => {
        queued.push({ path, line, resolve, reject });
        void drain();
      }),
    drain,
  };
}

/** Appends `text` to `path` and fsyncs it, creating its directory once (`madeDirs` remembers). */
async function appendAndSync(path: string, text: string, madeDirs: Set<string>): Promise<void> {
  const dir = join(path, '..');
  if (!madeDirs.has(dir)) {
    await makeDirectory(dir).catch((error: unknown) => {
      throw new DeliveryError(`file ${dir}: cannot create the directory (${codeOf(error)})`, {
        retryable: true,
        cause: error,
      });
    });
    madeDirs.add(dir);
  }
  const handle = await open(path, 'a');
  try {
    await handle.write(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function codeOf(error: unknown): string {
  return errnoCode(error) ?? (error instanceof Error ? error.message : String(error));
}
