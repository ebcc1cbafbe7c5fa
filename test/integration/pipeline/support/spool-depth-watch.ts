import http from 'node:http';

export interface SpoolDepthWatch {
  /** The deepest the spool was seen. */
  peak: () => number;
  /** Resolves with the ms from `since` to the first reading of 0 taken after it. */
  emptySince: (since: number, giveUpMs: number) => Promise<number>;
  stop: () => void;
}

/** Reads the listener's `svcws_spool_depth` from its /metrics every `everyMs`. */
export function watchSpoolDepth(port: number, everyMs = 250): SpoolDepthWatch {
  const readings: { at: number; depth: number }[] = [];
  let stopped = false;
  const poll = async (): Promise<void> => {
    while (!stopped) {
      const at = Date.now();
      const depth = await spoolDepth(port).catch(() => undefined);
      if (depth !== undefined) readings.push({ at, depth });
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  };
  void poll();
  return {
    peak: () => Math.max(0, ...readings.map((reading) => reading.depth)),
    emptySince: async (since, giveUpMs) => {
      for (;;) {
        const empty = readings.find((reading) => reading.at >= since && reading.depth === 0);
        if (empty !== undefined) return empty.at - since;
        if (Date.now() - since > giveUpMs) {
          const last = readings.at(-1)?.depth;
          throw new Error(`spool not empty ${String(giveUpMs)} ms after; depth ${String(last)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    },
    stop: () => {
      stopped = true;
    },
  };
}

function spoolDepth(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/metrics', timeout: 2000 }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        const found = /^svcws_spool_depth (\d+)$/m.exec(text)?.[1];
        if (found === undefined) reject(new Error('no svcws_spool_depth in /metrics'));
        else resolve(Number(found));
      });
    });
    req.on('timeout', () => req.destroy(new Error('no answer from /metrics within 2 s')));
    req.on('error', reject);
  });
}
