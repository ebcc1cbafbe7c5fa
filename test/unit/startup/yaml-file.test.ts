import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileText, yamlTreeOf } from '../../../src/startup/yaml-file';
import { StartupFileError } from '../../../src/startup/startup-file-error';
import { aliasBomb } from '../../helpers/alias-bomb';

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing thrown');
}

describe('start-up files: size cap and YAML errors naming the file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'startup-file-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('refuses /dev/zero at once, naming the file and the cap', () => {
    const started = performance.now();

    const error = thrown(() => readFileText('/dev/zero', 'routes file', 1024 * 1024));

    expect(error).toBeInstanceOf(StartupFileError);
    expect((error as StartupFileError).message).toBe(
      'invalid routes file /dev/zero: larger than 1048576 bytes, the cap of a start-up file',
    );
    // Generous for a loaded machine; reading to the end would never return.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('refuses a file one byte past the cap and reads one at the cap', async () => {
    const path = join(dir, 'routes.yaml');
    await writeFile(path, 'a'.repeat(101));
    expect(thrown(() => readFileText(path, 'routes file', 100))).toBeInstanceOf(StartupFileError);
    await writeFile(path, 'a'.repeat(100));
    expect(readFileText(path, 'routes file', 100)).toHaveLength(100);
  });

  it('names the file in an alias bomb’s error', () => {
    const error = thrown(() => yamlTreeOf(aliasBomb(), 'institutions file'));

    expect(error).toBeInstanceOf(StartupFileError);
    expect((error as StartupFileError).message).toMatch(/^invalid institutions file: YAML: /);
  });
});
