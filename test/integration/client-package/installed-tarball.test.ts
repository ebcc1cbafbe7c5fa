import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startSandbox, TEST_API_KEY } from '@svcws/sandbox';
import type { SandboxUnderTest } from '@svcws/sandbox';

const run = promisify(execFile);
const CLIENT_DIR = join(__dirname, '../../../packages/client');

// What a script author does with the published client: install the tarball alone (no workspace,
// no product) and call the platform from plain node (packages/client/README.md, quick example).
const SCRIPT = `
const { createSvcClient } = require('@svcws/client');
const client = createSvcClient({ baseUrl: process.argv[2], apiKey: process.argv[3] });
client.request('GET /conf/jobs', { query: { limit: 100 } }).then(
  (page) => console.log(JSON.stringify({ total: page.total_record_count })),
  (error) => { console.error(error); process.exit(1); },
);
`;

/** npm as a user runs it: none of the npm_* settings jest inherited from `npm test`. */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')),
  );
}

describe('the packed client installed alone', () => {
  let project: string;
  let sut: SandboxUnderTest;

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'svcws-client-'));
    sut = await startSandbox();
  });
  afterAll(async () => {
    await sut.close();
    await rm(project, { recursive: true, force: true });
  });

  it('packs, installs without server dependencies and answers a call from plain node', async () => {
    const env = npmEnv();
    await run('npm', ['pack', '--pack-destination', project], { cwd: CLIENT_DIR, env });
    const [tarball] = (await readdir(project)).filter((name) => name.endsWith('.tgz'));
    await writeFile(join(project, 'package.json'), '{ "private": true }');
    await writeFile(join(project, 'call.js'), SCRIPT);
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${String(tarball)}`],
      { cwd: project, env },
    );

    const installed = await readdir(join(project, 'node_modules'));
    expect(installed).toEqual(expect.arrayContaining(['@svcws', 'zod']));
    for (const server of ['express', 'bullmq', 'ioredis', 'pino', 'nats', 'svcws-listener']) {
      expect(installed).not.toContain(server);
    }
    const { stdout } = await run('node', ['call.js', sut.url, TEST_API_KEY], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({ total: 13 });
  }, 180_000);
});
