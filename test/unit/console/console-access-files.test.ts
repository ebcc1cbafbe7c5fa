import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex } from '../../../src/console';
import {
  loadConsoleRolesFile,
  loadConsoleTokensFile,
} from '../../../src/console/auth/console-access-files';
import { StartupFileError } from '../../../src/startup/startup-file-error';

/** A token as `console-token` prints one: it must never appear in an error. */
const TOKEN = 'Zq3vT0k3n-0f-the-operat0r-never-pr1nted-XYZ';
const GOOD = `  - { name: ops, sha256: ${sha256Hex('another-token')}, role: operator }\n`;

describe('a console tokens file that cannot be used', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-tokens-file-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The error loading `text` as a tokens file gives, and the file's path. */
  async function errorOf(
    text: string,
    load: (path: string) => unknown = loadConsoleTokensFile,
  ): Promise<{ error: StartupFileError; path: string }> {
    const path = join(dir, `tokens-${String(Math.random()).slice(2)}.yaml`);
    await writeFile(path, text);
    try {
      load(path);
    } catch (error) {
      if (error instanceof StartupFileError) return { error, path };
      throw error;
    }
    throw new Error('the file was taken');
  }

  it('names the path, the line and the entry expected when the token is pasted where its hash goes', async () => {
    const { error, path } = await errorOf(
      `tokens:\n${GOOD}  - { name: desk, sha256: ${TOKEN}, role: viewer }\n`,
    );
    expect(error.message).toContain(`invalid console tokens file ${path}: line 3: tokens.1.sha256`);
    expect(error.message).toContain('64 lower-case hex digits');
    expect(error.message).toContain('expected an entry `- { name: <name>, sha256: <64 hex digits');
    expect(error.message).not.toContain(TOKEN);
  });

  it('names the line of an entry written as `<role> <token>` instead of a mapping', async () => {
    const { error, path } = await errorOf(
      `# console tokens\ntokens:\n${GOOD}${GOOD}  - operator ${TOKEN}\n`,
    );
    expect(error.problems).toEqual([
      expect.stringMatching(/^line 5: tokens\.2: an object; expected an entry `- \{ name: <name>/),
    ]);
    expect(error.message).toContain(path);
    expect(error.message).not.toContain(TOKEN);
  });

  it('names the line of an unknown field and of a missing one, never their values', async () => {
    const { error } = await errorOf(
      `tokens:\n  - name: desk\n    role: viewer\n    token: ${TOKEN}\n${GOOD}  - { name: x, sha256: ${sha256Hex('x')} }\n`,
    );
    expect(error.problems).toEqual([
      expect.stringMatching(/^line 2: tokens\.0\.sha256: required; expected an entry/),
      expect.stringMatching(/^line 4: tokens\.0: unknown field token; expected an entry/),
      expect.stringMatching(/^line 6: tokens\.2\.role: one of viewer, operator; expected an entry/),
    ]);
    expect(error.message).not.toContain(TOKEN);
  });

  it('says what the whole file is expected to be when it is not a list of tokens', async () => {
    const { error, path } = await errorOf(`operator ${TOKEN}\n`);
    expect(error.message).toContain(
      `invalid console tokens file ${path}: line 1: the file: an object; expected \`tokens:\` and a list under it`,
    );
    expect(error.message).not.toContain(TOKEN);
  });

  it('names the path and the line of a YAML syntax error without quoting the line', async () => {
    const { error, path } = await errorOf(
      `tokens:\n${GOOD}  - { name: desk, sha256: ${TOKEN}, role: viewer\n`,
    );
    expect(error.message).toContain(`invalid console tokens file ${path}: YAML:`);
    expect(error.message).toMatch(/line \d+/);
    expect(error.message).not.toContain(TOKEN);
  });

  it('names the line of a roles file’s entry too', async () => {
    const { error, path } = await errorOf(
      'identities:\n  - { identity: alice@example.org, role: admin }\n',
      loadConsoleRolesFile,
    );
    expect(error.message).toContain(
      `invalid console roles file ${path}: line 2: identities.0.role: one of viewer, operator; expected an entry \`- { identity:`,
    );
  });

  it('takes a good file', async () => {
    const path = join(dir, 'good.yaml');
    await writeFile(path, `tokens:\n${GOOD}`);
    expect(loadConsoleTokensFile(path).tokens).toHaveLength(1);
  });
});
