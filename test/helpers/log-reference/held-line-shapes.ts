import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkLineShapes } from './check-line-shapes';
import { readLogReference } from './log-reference';
import type { LineShape } from './line-shape';
import { LOG_LINES_DIR_KEY } from './note-log-line';

/** A directory for the run's line shapes, named in the environment the test workers inherit. */
export function startNotingLines(): void {
  process.env[LOG_LINES_DIR_KEY] = mkdtempSync(join(tmpdir(), 'svcws-log-lines-'));
}

/**
 * Holds every line shape the run's child processes wrote to docs/logs.md's reference, then removes
 * them. Returns how many distinct shapes were held; throws naming every problem.
 */
export function holdNotedLines(): number {
  const dir = process.env[LOG_LINES_DIR_KEY];
  if (dir === undefined || dir === '') return 0;
  try {
    const shapes = readdirSync(dir).flatMap((file) =>
      readFileSync(join(dir, file), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as LineShape),
    );
    const problems = checkLineShapes(shapes, readLogReference());
    if (problems.length > 0)
      throw new Error(
        `the lines of this run's processes differ from docs/logs.md's reference:\n  ${problems.join('\n  ')}`,
      );
    return shapes.length;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
