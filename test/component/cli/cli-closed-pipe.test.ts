import { spawn } from 'node:child_process';
import { join } from 'node:path';

jest.setTimeout(30_000);

const ROOT = join(__dirname, '../../..');

describe('npm run events piped into a reader that leaves (head)', () => {
  it('exits 0 without a stack when its output pipe is closed', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'src/bin/cli.ts'), 'help'],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    // The reader is gone before the CLI writes its first line: every write is EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));

    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});
