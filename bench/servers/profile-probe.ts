import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

/**
 * Preloaded into a server the ingress profile starts (`node --require profile-probe.js`), so the
 * server's own code is not changed to be measured. Over IPC: `{ start: true }` starts V8's CPU
 * profiler (sampling every 100 µs) and resets the counters; `{ stop: '<file>' }` stops it, writes
 * the profile there and answers the CPU time (user + system) and the requests in between. Only
 * the measured window is profiled: start-up and warm-up stay out.
 */
let requests = 0;
let since = process.cpuUsage();
const session = new Session();
session.connect();
subscribe('http.server.request.start', () => {
  requests += 1;
});

function post(method: string, params?: object): Promise<unknown> {
  return new Promise((resolve, reject) => {
    session.post(method, params ?? {}, (error, result) => {
      if (error) reject(error);
      else resolve(result);
    });
  });
}

async function answer(message: { start?: true; stop?: string }): Promise<void> {
  if (message.start === true) {
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 100 });
    await post('Profiler.start');
    requests = 0;
    since = process.cpuUsage();
    process.send?.({ started: true });
  } else if (message.stop !== undefined) {
    const cpu = process.cpuUsage(since);
    const counted = requests;
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    writeFileSync(message.stop, JSON.stringify(profile));
    process.send?.({ stopped: true, cpuUs: cpu.user + cpu.system, requests: counted });
  }
}

process.on('message', (message: unknown) => {
  void answer(message as { start?: true; stop?: string });
});
