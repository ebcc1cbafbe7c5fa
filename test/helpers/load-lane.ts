import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Names the run's lane directory in the environment the test workers inherit. */
const LANE_DIR_KEY = 'SVCWS_TEST_LOAD_LANE';

/** How long a suite may wait for the lane: the longest load suite is about 6 minutes. */
export const LOAD_LANE_WAIT_MS = 30 * 60_000;

/** Made once by the global set-up, removed by its teardown. */
export function openLoadLane(): void {
  process.env[LANE_DIR_KEY] = mkdtempSync(join(tmpdir(), 'svcws-load-lane-'));
}

export function closeLoadLane(): void {
  const dir = process.env[LANE_DIR_KEY];
  if (dir !== undefined && dir !== '') rmSync(dir, { recursive: true, force: true });
}

/**
 * One lane, across the test workers, for the suites that hold a steady load on the machine
 * (a paced stream of deliveries for tens of seconds, each answered within the sender's 5 s): two
 * of them at once on two cores starve each other's listener past that bound, which is a fault of
 * the run, not of the product. The other suites run beside either. The lane is a directory made
 * with mkdir (atomic), holding its owner's pid: a lane whose owner died is taken over.
 */
export function loadLane(): { enter: () => Promise<void>; leave: () => void } {
  const dir = process.env[LANE_DIR_KEY];
  // Run alone (not through `npm test`): there is nobody to share the machine with.
  const held = dir === undefined || dir === '' ? undefined : join(dir, 'held');
  let mine = false;
  return {
    enter: async () => {
      if (held === undefined) return;
      while (!tryTake(held)) await new Promise((resolve) => setTimeout(resolve, 250));
      mine = true;
    },
    leave: () => {
      if (held !== undefined && mine) rmSync(held, { recursive: true, force: true });
      mine = false;
    },
  };
}

function tryTake(held: string): boolean {
  try {
    mkdirSync(held);
    writeFileSync(join(held, 'pid'), String(process.pid));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (ownerGone(held)) rmSync(held, { recursive: true, force: true });
    return false;
  }
}

function ownerGone(held: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(held, 'pid'), 'utf8'));
  } catch {
    // Made a moment ago, its pid not written yet.
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
