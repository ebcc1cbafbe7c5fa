import { join, relative } from 'node:path';
import { LOAD_LANE_WAIT_MS, RUN_ALONE, loadLane } from './load-lane';

// Every product suite takes its turn in the load lane (test/helpers/load-lane.ts): the ones in
// RUN_ALONE alone, the others beside each other.
const root = join(__dirname, '../..');
const path = relative(root, expect.getState().testPath ?? '').replaceAll('\\', '/');
const lane = loadLane(RUN_ALONE.includes(path));
beforeAll(() => lane.enter(), LOAD_LANE_WAIT_MS);
afterAll(() => {
  lane.leave();
});
