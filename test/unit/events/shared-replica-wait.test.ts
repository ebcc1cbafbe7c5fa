import { sharedReplicaWait } from '../../../src/events/shared-replica-wait';

/** A WAIT whose answer the test gives: each send is one pending answer, in the order sent. */
function controlledWaits(): {
  send: () => Promise<number>;
  sent: () => number;
  answer: (confirmed: number) => Promise<void>;
  fail: (error: Error) => Promise<void>;
} {
  const pending: { resolve: (n: number) => void; reject: (e: Error) => void }[] = [];
  let sent = 0;
  const settle = async (act: (one: (typeof pending)[number]) => void): Promise<void> => {
    const one = pending.shift();
    if (one === undefined) throw new Error('no WAIT is out');
    act(one);
    // Lets the promise chains run: the next WAIT is sent from them.
    for (let i = 0; i < 10; i += 1) await Promise.resolve();
  };
  return {
    send: () => {
      sent += 1;
      return new Promise((resolve, reject) => pending.push({ resolve, reject }));
    },
    sent: () => sent,
    answer: (confirmed) => settle((one) => one.resolve(confirmed)),
    fail: (error) => settle((one) => one.reject(error)),
  };
}

describe('sharedReplicaWait: one WAIT answers for every write made before it was sent', () => {
  it('sends one at once when none is out', async () => {
    const waits = controlledWaits();
    const wait = sharedReplicaWait(waits.send);
    const first = wait();
    expect(waits.sent()).toBe(1);
    await waits.answer(1);
    await expect(first).resolves.toBe(1);
    // Nothing out any more: the next caller sends its own at once.
    const second = wait();
    expect(waits.sent()).toBe(2);
    await waits.answer(2);
    await expect(second).resolves.toBe(2);
  });

  it('gives the callers that asked while one was out one WAIT sent after it returns', async () => {
    const waits = controlledWaits();
    const wait = sharedReplicaWait(waits.send);
    const first = wait();
    const later = [wait(), wait(), wait()];
    // The WAIT out was sent before their writes were answered: it does not answer for them.
    expect(waits.sent()).toBe(1);
    await waits.answer(0);
    await expect(first).resolves.toBe(0);
    expect(waits.sent()).toBe(2);
    const answers = Promise.all(later);
    await waits.answer(1);
    await expect(answers).resolves.toEqual([1, 1, 1]);
    expect(waits.sent()).toBe(2);
  });

  it('sends the next one when the one out fails, and fails only that one’s callers', async () => {
    const waits = controlledWaits();
    const wait = sharedReplicaWait(waits.send);
    const first = wait();
    const firstSettled = first.then(
      () => 'confirmed',
      (error: unknown) => (error as Error).message,
    );
    const later = wait();
    await waits.fail(new Error('Connection is closed.'));
    expect(await firstSettled).toBe('Connection is closed.');
    expect(waits.sent()).toBe(2);
    await waits.answer(1);
    await expect(later).resolves.toBe(1);
  });

  it('keeps at most one WAIT out and one waiting, whatever the number of callers', async () => {
    const waits = controlledWaits();
    const wait = sharedReplicaWait(waits.send);
    const all = Array.from({ length: 50 }, () => wait());
    expect(waits.sent()).toBe(1);
    await waits.answer(1);
    // A caller asking while the second is out waits for a third.
    const late = wait();
    expect(waits.sent()).toBe(2);
    await waits.answer(1);
    expect(waits.sent()).toBe(3);
    await waits.answer(1);
    await expect(Promise.all([...all, late])).resolves.toEqual(Array(51).fill(1));
  });
});
