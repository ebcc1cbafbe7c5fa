import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { FLOORS } from './floor-order';

const ROOT = join(__dirname, '../../..');
const SRC = join(ROOT, 'src');
const CLIENT = '@svcws/client';

/** One import: the file that makes it (under src/) and the file or package it takes. */
interface Import {
  readonly from: string;
  readonly to: string;
}

/** `from '…'`, `import '…'`, `import('…')` and `require('…')`: what a file takes, as written. */
const SPECIFIER = /\b(?:from|import)\s*\(?\s*'([^']+)'|\brequire\(\s*'([^']+)'\s*\)/g;

function sourceFiles(): string[] {
  return readdirSync(SRC, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(SRC, join(entry.parentPath, entry.name)))
    .sort();
}

/** The file a relative specifier names (`./x` → x.ts or x/index.ts), from src/. */
function resolved(file: string, specifier: string): string {
  const base = join(dirname(join(SRC, file)), specifier);
  const path = [`${base}.ts`, join(base, 'index.ts'), base].find((one) => existsSync(one)) ?? base;
  return relative(SRC, path);
}

function importsOf(file: string): Import[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  return [...text.matchAll(SPECIFIER)].flatMap((match) => {
    const specifier = match[1] ?? match[2] ?? '';
    if (specifier.startsWith('.')) return [{ from: file, to: resolved(file, specifier) }];
    if (specifier === CLIENT || specifier.startsWith(`${CLIENT}/`)) {
      return [{ from: file, to: CLIENT }];
    }
    return [];
  });
}

/** The room of a path under src/ (or the client package): the longest entry of FLOORS it is in. */
function roomOf(path: string, floors: readonly (readonly string[])[]): string | undefined {
  const rooms = floors.flat().filter((room) => {
    if (room === path) return true;
    if (!room.endsWith('/')) return false;
    const pattern = room.replace('*/', '[^/]+/');
    return new RegExp(`^${pattern}`).test(path);
  });
  return rooms.sort((a, b) => b.length - a.length)[0];
}

function floorOf(room: string, floors: readonly (readonly string[])[]): number {
  return floors.findIndex((floor) => floor.includes(room));
}

/** Every import that runs up: from a room to one on a floor above it (a lower index). */
function importsRunningUp(
  imports: readonly Import[],
  floors: readonly (readonly string[])[],
): string[] {
  return imports.flatMap(({ from, to }) => {
    const fromRoom = roomOf(from, floors);
    const toRoom = roomOf(to, floors);
    if (fromRoom === undefined || toRoom === undefined || fromRoom === toRoom) return [];
    return floorOf(toRoom, floors) < floorOf(fromRoom, floors)
      ? [`src/${from} (${fromRoom}) imports ${to} (${toRoom}), a floor above`]
      : [];
  });
}

/** docs/worker.md's "Floors": a numbered list, top first, each floor its rooms in backquotes. */
function floorsOfDoc(): string[][] {
  const text = readFileSync(join(ROOT, 'docs/worker.md'), 'utf8');
  const section = text.split(/^### Floors$/m)[1]?.split(/^#/m)[0] ?? '';
  const items = section.split(/^\d+\. /m).slice(1);
  return items.map((item) => [...item.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? ''));
}

describe('the floors of src/: every import runs down or stays on its floor', () => {
  it('finds an import that runs up (the checks below can fail)', () => {
    const imports = [
      { from: 'tracing/in-span.ts', to: 'routes/destinations/errno-code.ts' },
      { from: 'worker/handler-entries.ts', to: 'worker/job-end/job-end-handler-entry.ts' },
      { from: 'routes/record-attempt.ts', to: 'history/index.ts' },
      { from: 'worker/job-end/store-records.ts', to: '@svcws/client' },
    ];
    expect(importsRunningUp(imports, FLOORS)).toEqual([
      expect.stringContaining('src/tracing/in-span.ts (tracing/) imports routes/'),
      expect.stringContaining('src/worker/handler-entries.ts (worker/) imports worker/job-end/'),
    ]);
  });

  it('places every file of src/ in a room of the floors', () => {
    const unplaced = sourceFiles().filter((file) => roomOf(file, FLOORS) === undefined);
    expect(unplaced).toEqual([]);
  });

  it('finds no import of src/ that runs up a floor', () => {
    const imports = sourceFiles().flatMap(importsOf);
    expect(imports.length).toBeGreaterThan(500);
    expect(importsRunningUp(imports, FLOORS)).toEqual([]);
  });

  it('docs/worker.md lists the same floors, in the same order', () => {
    expect(floorsOfDoc()).toEqual(FLOORS.map((floor) => [...floor]));
  });
});
