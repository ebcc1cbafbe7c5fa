import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Names the run's lane directory in the environment the test workers inherit. */
const LANE_DIR_KEY = 'SVCWS_TEST_LOAD_LANE';

/**
 * A turn held longer is taken over, as one whose worker died: the longest suite takes about 6
 * minutes, and a suite that failed to load may never have left its turn.
 */
const TURN_AT_MOST_MS = 15 * 60_000;

/**
 * The suites that hold a steady load and are judged by its answers (each within the sender's 5 s):
 * each runs alone. Beside other suites on two cores (one starting a dozen processes, or another
 * load) their listener was starved past 5 s on a slower machine.
 */
export const RUN_ALONE: readonly string[] = [
  'test/integration/pipeline/redis-outage.test.ts',
  'test/integration/redis-ha/sentinel-failover.test.ts',
  'test/integration/listener/spool.test.ts',
  'test/integration/listener/spool-process.test.ts',
  'test/integration/listener/keep-alive-load.test.ts',
  'test/integration/redis-cluster/cluster-failover.test.ts',
];

/** Made once by the global set-up, removed by its teardown. */
export function openLoadLane(): void {
  process.env[LANE_DIR_KEY] = mkdtempSync(join(tmpdir(), 'svcws-load-lane-'));
}

export function closeLoadLane(): void {
  const dir = process.env[LANE_DIR_KEY];
  if (dir !== undefined && dir !== '') rmSync(dir, { recursive: true, force: true });
}

export interface LoadLane {
  /** Waits for the turn without blocking the process (polls every 250 ms). */
  enter(): Promise<void>;
  /**
   * Waits for the turn blocking the process: for a jest set-up file, which runs before the test
   * file is loaded, so a suite that waits does not compile its imports beside one that runs alone.
   */
  enterBlocking(): void;
  leave(): void;
}

const POLL_MS = 250;
const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, POLL_MS));
const pauseBlocking = (): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, POLL_MS);
};

/**
 * A turn across the test workers: `alone` waits until no other suite runs and keeps new ones out
 * until it leaves; any other suite runs beside any other, but not beside one running alone. Files
 * in the lane directory made with mkdir (atomic), each holding its owner's pid: a turn whose
 * owner died, or held past TURN_AT_MOST_MS, is taken over. Outside `npm test` (no lane directory) it waits for nothing.
 */
export function loadLane(alone: boolean): LoadLane {
  const dir = process.env[LANE_DIR_KEY];
  if (dir === undefined || dir === '') {
    return { enter: () => Promise.resolve(), enterBlocking: () => {}, leave: () => {} };
  }
  const exclusive = join(dir, 'alone');
  const shared = join(dir, `beside-${String(process.pid)}`);
  let held: string | undefined;
  /** One step towards the turn; true once it is held. */
  const step = (): boolean => {
    if (alone) {
      if (held === undefined && tryMake(exclusive)) held = exclusive;
      return held !== undefined && othersBeside(dir, shared).length === 0;
    }
    if (takenAlone(exclusive)) return false;
    writeFileSync(shared, String(process.pid));
    // Checked again once written: a suite that began to run alone meanwhile waits for this file
    // to go, so step back and let it run.
    if (takenAlone(exclusive)) {
      rmSync(shared, { force: true });
      return false;
    }
    held = shared;
    return true;
  };
  return {
    enter: async () => {
      while (!step()) await pause();
    },
    enterBlocking: () => {
      while (!step()) pauseBlocking();
    },
    leave: () => {
      if (held !== undefined) rmSync(held, { recursive: true, force: true });
      held = undefined;
    },
  };
}

/** Makes the directory `path` with this pid in it; false when it exists and its owner lives. */
function tryMake(path: string): boolean {
  try {
    mkdirSync(path);
    writeFileSync(join(path, 'pid'), String(process.pid));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (ownerGone(join(path, 'pid'))) rmSync(path, { recursive: true, force: true });
    return false;
  }
}

function takenAlone(exclusive: string): boolean {
  try {
    readdirSync(exclusive);
  } catch {
    return false;
  }
  if (!ownerGone(join(exclusive, 'pid'))) return true;
  rmSync(exclusive, { recursive: true, force: true });
  return false;
}

/** The other workers' `beside-<pid>` files, those of dead workers removed. */
function othersBeside(dir: string, own: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.startsWith('beside-'))
    .map((name) => join(dir, name))
    .filter((path) => {
      if (path === own) return false;
      if (!ownerGone(path)) return true;
      rmSync(path, { force: true });
      return false;
    });
}

function ownerGone(pidFile: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8'));
    if (Date.now() - statSync(pidFile).mtimeMs > TURN_AT_MOST_MS) return true;
  } catch {
    // Made a moment ago, its pid not written yet (or gone since).
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
