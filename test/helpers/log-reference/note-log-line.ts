import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { shapeKey, shapeOf } from './line-shape';

/** Where the test run keeps the shapes of its processes' lines (set by test/services/global-setup.ts). */
export const LOG_LINES_DIR_KEY = 'TEST_LOG_LINES_DIR';

const seen = new Set<string>();

/**
 * Keeps the shape of one line a test's child process wrote, for the run's end to hold against the
 * log reference (test/services/global-teardown.ts). Each distinct shape once per test worker.
 */
export function noteLogLine(line: Readonly<Record<string, unknown>>, process?: string): void {
  const dir = globalThis.process.env[LOG_LINES_DIR_KEY];
  if (dir === undefined || dir === '') return;
  const shape = shapeOf(line, process);
  if (shape === undefined) return;
  const key = shapeKey(shape);
  if (seen.has(key)) return;
  seen.add(key);
  appendFileSync(
    join(dir, `${String(globalThis.process.pid)}.jsonl`),
    `${JSON.stringify(shape)}\n`,
  );
}

/** Notes every JSON line of a child's stream (what is not JSON is not a log line: skipped). */
export function noteLinesOf(stream: NodeJS.ReadableStream | null | undefined): void {
  let rest = '';
  stream?.on('data', (chunk: Buffer) => {
    rest += chunk.toString('utf8');
    const complete = rest.split('\n');
    rest = complete.pop() ?? '';
    for (const text of complete) {
      if (!text.startsWith('{')) continue;
      try {
        noteLogLine(JSON.parse(text) as Record<string, unknown>);
      } catch {
        // not a line of ours (a partial write of something else): nothing to hold
      }
    }
  });
}
