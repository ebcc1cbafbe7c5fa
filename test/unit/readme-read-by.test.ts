import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliQueueConfig, CliRejectedConfig } from '../../src/cli/cli-config';
import { CliRoutesConfig } from '../../src/cli/open-route-queues';
import { ConsoleConfig, EnvSchema, HistoryConfig, WebConfig, WorkerConfig } from '../../src/config';

const README = readFileSync(join(__dirname, '../../README.md'), 'utf8');

/** Each process's keys, as it picks them in src/config.ts (loadConfig reads exactly these). */
const PROCESSES = {
  web: Object.keys(WebConfig.shape),
  worker: Object.keys(WorkerConfig.shape),
  console: Object.keys(ConsoleConfig.shape),
} as const;
/** The CLI's own schemas (reconcile also reads the worker's, as its usage says). */
const CLI = new Set([
  ...Object.keys(CliQueueConfig.shape),
  ...Object.keys(CliRejectedConfig.shape),
  ...Object.keys(CliRoutesConfig.shape),
  ...Object.keys(HistoryConfig.shape),
]);

/** The README's configuration table: each row's keys (wildcards expanded) and its "Read by". */
function readmeRows(): { keys: string[]; readBy: string[] }[] {
  const start = README.indexOf('| Key ');
  const table = README.slice(start, README.indexOf('\n\n', start)).split('\n').slice(2);
  const all = Object.keys(EnvSchema.shape);
  return table.map((line) => {
    const cells = line.split(/(?<!\\)\|/).map((cell) => cell.trim());
    const keys = [...(cells[1] ?? '').matchAll(/`([A-Z_*]+)`/g)].flatMap(([, key = '']) =>
      key.endsWith('*') ? all.filter((one) => one.startsWith(key.slice(0, -1))) : [key],
    );
    const readBy = (cells[3] ?? '').split(',').map((one) => one.trim());
    return { keys, readBy };
  });
}

describe("the README's configuration table", () => {
  const rows = readmeRows();

  it('is found, with keys of the schema only', () => {
    expect(rows.length).toBeGreaterThan(40);
    const unknown = rows.flatMap((row) => row.keys).filter((key) => !(key in EnvSchema.shape));
    expect(unknown).toEqual([]);
  });

  it('lists every key of the config schemas (a key missing from the table is a failure)', () => {
    const listed = new Set(rows.flatMap((row) => row.keys));
    const schemaKeys = new Set([
      ...Object.keys(EnvSchema.shape),
      ...Object.values(PROCESSES).flat(),
      ...CLI,
    ]);

    expect([...schemaKeys].filter((key) => !listed.has(key))).toEqual([]);
  });

  it("names in 'Read by' exactly the processes whose config schema reads each key", () => {
    const wrong = rows.flatMap(({ keys, readBy }) =>
      keys.flatMap((key) => {
        const said = readBy.filter((one) => one in PROCESSES).sort();
        const reads = Object.entries(PROCESSES)
          .filter(([, picked]) => picked.includes(key))
          .map(([name]) => name)
          .sort();
        return said.join() === reads.join()
          ? []
          : [`${key}: says ${said.join()}, read by ${reads.join()}`];
      }),
    );
    expect(wrong).toEqual([]);
  });

  it("says cli for every key the CLI's own schemas read", () => {
    const withCli = new Set(
      rows.filter((row) => row.readBy.includes('cli')).flatMap((row) => row.keys),
    );
    const listed = new Set(rows.flatMap((row) => row.keys));

    expect([...CLI].filter((key) => listed.has(key) && !withCli.has(key))).toEqual([]);
  });
});
