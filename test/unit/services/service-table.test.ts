import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PRIVATE_SERVERS, TOOLS } from '../../../scripts/services/service-table';

/** The rows of the README's "Needed | For | Debian packages" table, cells trimmed. */
function readmeRows(): string[][] {
  const readme = readFileSync(path.join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
  const lines = readme.split('\n');
  const header = lines.findIndex((line) =>
    /^\|\s*Needed\s*\|\s*For\s*\|\s*Debian packages\s*\|/.test(line),
  );
  expect(header).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const packagesCell = (packages: readonly string[]): string =>
  packages.map((name) => `\`${name}\``).join(', ');

describe('the one table of what the tests need', () => {
  it('is the README’s list, row for row: every server and tool with its Debian packages', () => {
    const expected = [
      ...PRIVATE_SERVERS.map((kind) => [
        kind.title,
        `private server (\`${kind.variable}\`)`,
        packagesCell(kind.packages),
      ]),
      ...TOOLS.map((tool) => [
        `\`${tool.name}\``,
        tool.neededFor === 'tests' ? 'tests' : 'image check',
        packagesCell(tool.packages),
      ]),
    ];

    expect(readmeRows()).toEqual(expected);
  });

  it('hands every server’s address to the tests in a variable of its own', () => {
    const variables = PRIVATE_SERVERS.map((kind) => kind.variable);

    expect(new Set(variables).size).toBe(PRIVATE_SERVERS.length);
    for (const variable of variables)
      expect(process.env[variable]).toMatch(/^\w+:\/\/.*127\.0\.0\.1:\d+/);
  });

  it('never hands over a server on its default port', () => {
    const defaults = ['6379', '5432', '5672', '4222', '1883'];
    const ports = PRIVATE_SERVERS.map((kind) => new URL(process.env[kind.variable] ?? '').port);

    expect(ports.filter((port) => defaults.includes(port))).toEqual([]);
  });
});
