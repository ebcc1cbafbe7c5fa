/**
 * One `WAIT` answers for many writes. WAIT returns once the replicas have acknowledged every write
 * its connection made before it; while it waits, Redis holds every later command of that
 * connection (the next deliveries' adds among them). A WAIT per delivery therefore makes one
 * delivery per replica round trip the most a listener can do, and a replica slow to answer (a
 * busy machine) turns a steady load into a backlog.
 *
 * Shared instead: a caller whose write has been answered gets the count of a WAIT sent after it
 * asked — the one sent now if none is out, else the next one, sent as soon as the one out
 * returns, for every caller that asked meanwhile. So at most one WAIT is out and one is waiting,
 * and each covers the writes of all its callers. A caller may wait for the WAIT out and then its
 * own: twice the timeout at most.
 */
export function sharedReplicaWait(send: () => Promise<number>): () => Promise<number> {
  let out: Promise<number> | undefined;
  let next: Promise<number> | undefined;
  const start = (): Promise<number> => {
    const sent = send();
    out = sent;
    const clear = (): void => {
      if (out === sent) out = undefined;
    };
    sent.then(clear, clear);
    return sent;
  };
  return () => {
    if (out === undefined) return start();
    // Sent after the WAIT out returns, whichever way it returns: it covers this caller's write.
    next ??= out
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        next = undefined;
        return start();
      });
    return next;
  };
}
