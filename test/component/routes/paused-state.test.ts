import { Queue } from 'bullmq';
import { PAUSE_CONFIRMED_FOR_MS, createPausedState } from '../../../src/routes/paused-state';
import type { PausedState } from '../../../src/routes/paused-state';
import { TEST_REDIS_URL, obliterateQueue, uniqueQueueName } from '../../helpers/redis';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("a route's pause, read in the background", () => {
  let queueName: string;
  let queue: Queue;
  /** Another handle on the same queue: a pause made from another process. */
  let other: Queue;
  let state: PausedState | undefined;

  beforeEach(async () => {
    queueName = uniqueQueueName('paused-state');
    queue = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    other = new Queue(queueName, { connection: { url: TEST_REDIS_URL } });
    await Promise.all([queue.waitUntilReady(), other.waitUntilReady()]);
  });
  afterEach(async () => {
    state?.stop();
    await Promise.all([queue.close(), other.close()]);
    await obliterateQueue(queueName);
  });

  /** The state with no background read after the first: every later read is one the test caused. */
  async function readOnce(): Promise<{ state: PausedState; reads: () => number }> {
    let reads = 0;
    const isPaused = queue.isPaused.bind(queue);
    queue.isPaused = () => {
      reads += 1;
      return isPaused();
    };
    state = createPausedState(queue, 3_600_000);
    await state.confirm();
    return { state, reads: () => reads };
  }

  it('reads a "running" that is only old again instead of taking it for a pause', async () => {
    const { state, reads } = await readOnce();
    expect(state.runningConfirmed()).toBe(true);
    await sleep(PAUSE_CONFIRMED_FOR_MS + 100);
    // Old: not confirmed any more, though nothing paused the route.
    expect(state.runningConfirmed()).toBe(false);
    const before = reads();

    await expect(state.runningNow()).resolves.toBe(true);
    expect(reads()).toBe(before + 1);
    expect(state.runningConfirmed()).toBe(true);
  });

  it('says paused for a pause made elsewhere once the old read is made again', async () => {
    const { state } = await readOnce();
    await other.pause();
    await sleep(PAUSE_CONFIRMED_FOR_MS + 100);

    await expect(state.runningNow()).resolves.toBe(false);
  });

  it('makes no round trip for a pause it knows', async () => {
    const { state, reads } = await readOnce();
    await other.pause();
    await sleep(PAUSE_CONFIRMED_FOR_MS + 100);
    await state.runningNow();
    const before = reads();

    for (let i = 0; i < 5; i += 1) await expect(state.runningNow()).resolves.toBe(false);
    expect(reads()).toBe(before);
  });
});
