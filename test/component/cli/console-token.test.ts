import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../../src/cli/run-cli';
import {
  loadConsoleTokensFile,
  principalOfToken,
} from '../../../src/console/auth/console-access-files';
import { captureIo } from './cli-io-capture';

describe('console-token', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'console-token-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints a block that, pasted into a new file, admits the printed token with its role', async () => {
    const io = captureIo({});

    const status = await runCli(
      ['console-token', '--role', 'operator', '--institution', '01SVC_INST', '--name', 'desk "A"'],
      io,
    );

    expect(status).toBe(0);
    const lines = io.stdout().split('\n');
    const token = lines[0]?.replace(/^token: /, '') ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // What an operator pastes: everything from `tokens:` on, as printed.
    const block = lines.slice(lines.indexOf('tokens:')).join('\n');
    const file = path.join(dir, 'console-tokens.yaml');
    await writeFile(file, `${block}\n`);
    const principal = principalOfToken(loadConsoleTokensFile(file), token);
    expect(principal).toMatchObject({
      role: 'operator',
      name: 'desk "A"',
      institution: '01SVC_INST',
    });
    expect(principalOfToken(loadConsoleTokensFile(file), `${token}x`)).toBeUndefined();
    expect(block).not.toContain(token);
  });
});
