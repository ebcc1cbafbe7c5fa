import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

jest.setTimeout(120_000);

const ROOTS = join(__dirname, '../../..');
const ROUNDS = 300;

interface Said {
  dir?: string;
  won?: boolean;
  holder?: number;
  message?: string;
  ready?: boolean;
}

/** A racer process (support/spool-lock-racer.ts) and its next line, awaited with a deadline. */
function startRacer(): { child: ChildProcessWithoutNullStreams; next: () => Promise<Said> } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'support/spool-lock-racer.ts')],
    { cwd: ROOTS, stdio: 'pipe' },
  );
  const lines: Said[] = [];
  const waiting: ((said: Said) => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const said = JSON.parse(line) as Said;
    const waiter = waiting.shift();
    if (waiter === undefined) lines.push(said);
    else waiter(said);
  });
  const next = (): Promise<Said> => {
    const said = lines.shift();
    if (said !== undefined) return Promise.resolve(said);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('a racer did not answer within 20 s')),
        20_000,
      );
      waiting.push((one) => {
        clearTimeout(timer);
        resolve(one);
      });
    });
  };
  return { child, next };
}

describe('the spool lock, raced for by two processes', () => {
  let base: string;
  const racers = [startRacer(), startRacer()];

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'spool-lock-race-'));
    for (const racer of racers) expect(await racer.next()).toEqual({ ready: true });
  });
  afterAll(async () => {
    for (const { child } of racers) child.kill('SIGKILL');
    await rm(base, { recursive: true, force: true });
  });

  it(`a stale lock raced for by two live processes goes to exactly one, ${String(ROUNDS)} rounds out of ${String(ROUNDS)}`, async () => {
    // A pid that existed and no longer does: the holder of every stale lock below.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const dir = join(base, String(round));
      await mkdir(dir, { mode: 0o700 });
      await writeFile(join(dir, 'spool.lock'), `${String(gone)} 0\n`);

      for (const { child } of racers) child.stdin.write(`${dir}\n`);
      const said = await Promise.all(racers.map((racer) => racer.next()));

      const winners = said.flatMap((one, i) => (one.won === true ? [racers[i]?.child.pid] : []));
      const loser = said.find((one) => one.won !== true);
      const holder = (await readFile(join(dir, 'spool.lock'), 'utf8')).split(' ')[0];
      outcomes.push(
        winners.length === 1 && loser?.holder === winners[0] && holder === String(winners[0])
          ? 'one'
          : `round ${String(round)}: ${JSON.stringify(said)}, lock names ${String(holder)}`,
      );
    }

    expect(outcomes.filter((one) => one !== 'one')).toEqual([]);
  });
});
