import { execFile } from 'node:child_process';
import path from 'node:path';
import { HISTORY_MIGRATIONS } from '../../../src/history/history-migrations';

const root = path.join(__dirname, '../../..');

describe('the embedded history (PGlite)', () => {
  it('runs the same SQL: migrate, write, search, journey, prune', async () => {
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        path.join(root, 'node_modules/.bin/tsx'),
        [path.join(root, 'test/helpers/embedded-history-scenario.ts')],
        { cwd: root, timeout: 120_000 },
        (error, stdout) => (error === null ? resolve(stdout) : reject(error)),
      );
    });
    const seen = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(seen).toMatchObject({
      embedded: true,
      appliedAgain: [],
      written: 5,
      steps: ['received', 'queued', 'taken', 'attempt', 'finished'],
      idInClear: false,
    });
    expect(seen.found).toEqual([seen.loanId]);
    // Every version (the newest-first index too), an exact and a bounded count, the newest page.
    expect(seen.version).toBe(HISTORY_MIGRATIONS.at(-1)?.version);
    expect(seen.counts).toEqual([2, 1]);
    expect(seen.newest).toEqual([seen.loanId]);
    expect(seen.hasNext).toBe(true);
    expect(seen.dropped).toBeGreaterThan(0);
    expect(seen.remaining).toEqual([seen.loanId]);
  });
});
