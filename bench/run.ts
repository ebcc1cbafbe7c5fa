import { readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm run bench [-- <name filter>]`: runs every `bench/*.bench.ts` in turn. Each exports
 * `run(): Promise<void>` and prints its own figures; benchmarks measure, tests check behaviour.
 */
async function main(): Promise<void> {
  const filter = process.argv[2];
  const files = readdirSync(__dirname)
    .filter((file) => file.endsWith('.bench.ts'))
    .filter((file) => filter === undefined || file.includes(filter))
    .sort();
  if (files.length === 0) throw new Error(`no benchmark matches ${filter ?? '(all)'}`);
  for (const file of files) {
    process.stdout.write(`\n=== ${file}\n`);
    const module = (await import(path.join(__dirname, file))) as { run?: () => Promise<void> };
    if (typeof module.run !== 'function') throw new Error(`${file} exports no run()`);
    await module.run();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
