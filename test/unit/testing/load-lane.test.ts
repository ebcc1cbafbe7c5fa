import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_ALONE, closeLoadLane, loadLane, openLoadLane } from '../../helpers/load-lane';

const KEY = 'SVCWS_TEST_LOAD_LANE';
const ROOT = join(__dirname, '../../..');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `promise` has settled after `ms`. */
async function settledWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  await sleep(ms);
  return settled;
}

/** A pid nobody has now: a process that has exited. */
function deadPid(): string {
  return spawnSync(process.execPath, [
    '-e',
    'process.stdout.write(String(process.pid))',
  ]).stdout.toString();
}

describe('the load lane: suites judged under a steady load run alone', () => {
  const runLane = process.env[KEY];
  beforeEach(() => {
    openLoadLane();
  });
  afterEach(() => {
    closeLoadLane();
    process.env[KEY] = runLane;
  });

  it('lets suites run beside each other, and one that runs alone in once they have left', async () => {
    const dir = process.env[KEY] ?? '';
    // A suite in another worker (its turn is named by its worker's pid: the parent's, alive).
    writeFileSync(join(dir, 'beside-1'), String(process.ppid));
    const a = loadLane(false);
    // Free of anyone running alone: taken at once, blocking or not.
    loadLane(false).enterBlocking();
    expect(await settledWithin(a.enter(), 300)).toBe(true);

    const alone = loadLane(true);
    const entering = alone.enter();
    expect(await settledWithin(entering, 600)).toBe(false);
    a.leave();
    // The other worker's suite (the parent's pid: alive) still runs.
    expect(await settledWithin(entering, 600)).toBe(false);
    rmSync(join(dir, 'beside-1'));
    await entering;

    // While it runs alone, no other suite starts.
    const next = loadLane(false);
    const waiting = next.enter();
    expect(await settledWithin(waiting, 600)).toBe(false);
    alone.leave();
    await waiting;
    next.leave();
  });

  it('takes over a turn whose owner died', async () => {
    const dir = process.env[KEY] ?? '';
    mkdirSync(join(dir, 'alone'));
    writeFileSync(join(dir, 'alone', 'pid'), deadPid());
    writeFileSync(join(dir, 'beside-2'), deadPid());

    const lane = loadLane(true);
    await lane.enter();
    expect(existsSync(join(dir, 'beside-2'))).toBe(false);
    lane.leave();
    expect(existsSync(join(dir, 'alone'))).toBe(false);
  });

  it('names suites that exist', () => {
    for (const path of RUN_ALONE)
      expect({ path, exists: existsSync(join(ROOT, path)) }).toEqual({ path, exists: true });
  });
});
