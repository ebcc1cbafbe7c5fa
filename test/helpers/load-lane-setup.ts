import { join, relative } from 'node:path';
import { RUN_ALONE, loadLane } from './load-lane';

// Every product suite takes its turn in the load lane (test/helpers/load-lane.ts): the ones in
// RUN_ALONE alone, the others beside each other. Taken here, as the set-up file loads, before
// jest loads the test file: a suite that waits compiles nothing beside one that runs alone.
const root = join(__dirname, '../..');
const path = relative(root, expect.getState().testPath ?? '').replaceAll('\\', '/');
const lane = loadLane(RUN_ALONE.includes(path));
lane.enterBlocking();
afterAll(() => {
  lane.leave();
});
