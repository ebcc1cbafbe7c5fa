import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeLoadLane, loadLane, openLoadLane } from '../../helpers/load-lane';

const KEY = 'SVCWS_TEST_LOAD_LANE';

describe('the load lane: the suites that hold a steady load take turns', () => {
  const runLane = process.env[KEY];
  beforeEach(() => {
    openLoadLane();
  });
  afterEach(() => {
    closeLoadLane();
    process.env[KEY] = runLane;
  });

  it('lets a second suite in only once the first has left', async () => {
    const first = loadLane();
    const second = loadLane();
    await first.enter();
    let entered = false;
    const waiting = second.enter().then(() => {
      entered = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(entered).toBe(false);

    first.leave();
    await waiting;
    expect(entered).toBe(true);
    second.leave();
  });

  it('takes over a lane whose owner died', async () => {
    const dir = process.env[KEY] ?? '';
    // A process that has exited: its pid names nobody now.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    mkdirSync(join(dir, 'held'));
    writeFileSync(join(dir, 'held', 'pid'), gone.stdout.toString());

    const lane = loadLane();
    await lane.enter();
    lane.leave();
    expect(existsSync(join(dir, 'held'))).toBe(false);
  });
});
