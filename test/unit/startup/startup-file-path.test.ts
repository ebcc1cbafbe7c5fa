import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadConsoleRolesFile,
  loadConsoleTokensFile,
} from '../../../src/console/auth/console-access-files';
import { loadExpectedEventsFile } from '../../../src/expected/expected-events-file';
import { loadInstitutionsFile } from '../../../src/institutions/load-institutions-file';
import { loadRoutesFile } from '../../../src/routes/load-routes-file';
import { StartupFileError } from '../../../src/startup/startup-file-error';
import { aliasBomb } from '../../helpers/alias-bomb';

function thrown(run: () => unknown): StartupFileError {
  try {
    run();
  } catch (error) {
    if (error instanceof StartupFileError) return error;
    throw error;
  }
  throw new Error('nothing thrown');
}

/** Each start-up file's loader, and one file of each kind that its schema refuses. */
const FILES = [
  {
    label: 'routes file',
    load: (path: string) => loadRoutesFile(path, {}),
    schemaError: 'routes:\n  - name: loans\n    to: { nowhere: {} }\n',
    problem: 'route "loans": to: unknown destination nowhere',
  },
  {
    label: 'institutions file',
    load: (path: string) => loadInstitutionsFile(path, {}),
    schemaError: 'institutions:\n  - { code: INST_A }\n',
    problem: 'institution "INST_A": ',
  },
  {
    label: 'console roles file',
    load: (path: string) => loadConsoleRolesFile(path),
    schemaError: 'identities:\n  - { identity: jane@library.example, role: admiral }\n',
    problem: 'line 2: identities.0.role: one of ',
  },
  {
    label: 'console tokens file',
    load: (path: string) => loadConsoleTokensFile(path),
    schemaError: 'tokens:\n  - { name: ops, sha256: not-a-digest, role: operator }\n',
    problem: 'line 2: tokens.0.sha256: ',
  },
  {
    label: 'expected events file',
    load: (path: string) => loadExpectedEventsFile(path),
    schemaError: 'expected:\n  - { kind: loan, jobEnd: S7781, everyHours: 1 }\n',
    problem: 'rule #1: one of jobEnd or kind',
  },
] as const;

describe('start-up files: an error names the path of the file at fault', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'startup-path-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each(FILES)(
    '$label: a YAML syntax error names the path, the line and the column',
    async (file) => {
      const path = join(dir, `broken-${file.label.replaceAll(' ', '-')}.yaml`);
      await writeFile(path, 'first: 1\nsecond: [1, 2\nthird: 3\n');

      const error = thrown(() => file.load(path));

      expect(error.message.startsWith(`invalid ${file.label} ${path}: YAML: `)).toBe(true);
      expect(error.message).toMatch(/at line \d+, column \d+/);
      expect(error.path).toBe(path);
    },
  );

  it.each(FILES)('$label: a JSON syntax error names the path and the line', async (file) => {
    const path = join(dir, `broken-${file.label.replaceAll(' ', '-')}.json`);
    await writeFile(path, '{\n  "a": 1,\n  "b": [1, 2\n}\n');

    const error = thrown(() => file.load(path));

    expect(error.message.startsWith(`invalid ${file.label} ${path}: YAML: `)).toBe(true);
    expect(error.message).toMatch(/at line \d+, column \d+/);
  });

  it.each(FILES)('$label: a schema error names the path and the entry', async (file) => {
    const path = join(dir, `wrong-${file.label.replaceAll(' ', '-')}.yaml`);
    await writeFile(path, file.schemaError);

    const error = thrown(() => file.load(path));

    expect(error.message).toContain(`invalid ${file.label} ${path}: ${file.problem}`);
  });

  it.each(FILES)('$label: an alias bomb is refused at once, naming the path', async (file) => {
    const path = join(dir, `bomb-${file.label.replaceAll(' ', '-')}.yaml`);
    await writeFile(path, aliasBomb());

    const error = thrown(() => file.load(path));

    expect(error.message.startsWith(`invalid ${file.label} ${path}: YAML: `)).toBe(true);
    expect(error.message).toMatch(/alias/i);
    expect(error.path).toBe(path);
  });

  it('names the path once when the file cannot be read', () => {
    const path = join(dir, 'missing.yaml');

    const error = thrown(() => loadRoutesFile(path, {}));

    expect(error.message).toBe(`invalid routes file ${path}: cannot be read (ENOENT)`);
  });
});
