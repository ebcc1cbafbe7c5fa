import { createInterface } from 'node:readline';
import { acquireSpoolLock, SpoolLockedError } from '../../../../src/events/spool/spool-lock';

/**
 * Started twice by test/integration/listener/spool-lock-race.test.ts: for each directory read on
 * stdin, tries to take its spool lock and says on stdout whether it did (the lock is kept).
 */
const say = (fields: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(fields)}\n`);
};
createInterface({ input: process.stdin }).on('line', (dir) => {
  try {
    acquireSpoolLock(dir);
    say({ dir, won: true });
  } catch (error) {
    const holder = error instanceof SpoolLockedError ? error.pid : undefined;
    say({ dir, won: false, holder, message: String(error) });
  }
});
say({ ready: true });
