import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const UNITS = join(ROOT, 'deploy/systemd');
const PROCESSES = { listener: 'web', worker: 'worker', console: 'console' } as const;

function verify(files: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      'systemd-analyze',
      ['verify', ...files],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** The `install` lines of deployment.md's systemd recipe (its first sh block), as written. */
function recipeInstallLines(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/deployment.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## systemd'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split('\n').filter((line) => line.startsWith('install '));
}

function runSh(command: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', command], { cwd: ROOT, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** `Key=value` lines of a unit, by key (the last one wins, as systemd reads them). */
function keysOf(unit: string): Map<string, string> {
  const keys = new Map<string, string>();
  for (const line of unit.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match?.[1] !== undefined) keys.set(match[1], match[2] ?? '');
  }
  return keys;
}

describe('deploy/systemd', () => {
  const files = Object.keys(PROCESSES).map((name) => join(UNITS, `svcws-${name}.service`));

  it('passes systemd-analyze verify with nothing to say (an unknown key is a warning, so is any output)', async () => {
    // verify checks that ExecStart's program exists. The units name Debian's /usr/bin/node; where
    // this machine's Node lives elsewhere (a tarball's /usr/local/bin/node), the copies name it,
    // as deployment.md tells an installer to do.
    const dir = await mkdtemp(join(tmpdir(), 'units-'));
    try {
      const here = await Promise.all(
        files.map(async (file) => {
          const copy = join(dir, file.slice(UNITS.length + 1));
          const unit = readFileSync(file, 'utf8');
          const node = existsSync('/usr/bin/node') ? '/usr/bin/node' : process.execPath;
          await writeFile(copy, unit.replaceAll('ExecStart=/usr/bin/node ', `ExecStart=${node} `));
          return copy;
        }),
      );
      const result = await verify(here);

      expect(result).toEqual({ code: 0, output: '' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails verify on a misspelled key, so the check above can fail', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'unit-'));
    try {
      const broken = join(dir, 'broken.service');
      await writeFile(
        broken,
        readFileSync(files[0] ?? '', 'utf8').replace('NoNewPrivileges', 'NoNewPrivilges'),
      );
      expect((await verify([broken])).output).toContain("Unknown key 'NoNewPrivilges'");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("installs the environment file where the units read it, by the recipe's own install line (into a temporary root)", async () => {
    const lines = recipeInstallLines();
    expect(lines).toHaveLength(1);
    const root = await mkdtemp(join(tmpdir(), 'systemd-root-'));
    try {
      // The recipe runs as root on a host with the svcws group (sysusers above); here /etc is a
      // folder of the test's and the group this process's own, the rest of the line as written.
      const group = String(process.getgid?.() ?? 0);
      for (const line of lines) {
        const here = line
          .replaceAll(' /etc/', ` ${root}/etc/`)
          .replace(/-g svcws\b/, `-g ${group}`);
        expect(here).not.toBe(line);
        expect(await runSh(here)).toEqual({ code: 0, output: '' });
      }
      const unit = keysOf(readFileSync(join(UNITS, 'svcws-worker.service'), 'utf8'));
      const installed = join(root, unit.get('EnvironmentFile') ?? '');
      expect(await readFile(installed, 'utf8')).toBe(
        readFileSync(join(ROOT, '.env.example'), 'utf8'),
      );
      expect((await stat(installed)).mode & 0o777).toBe(0o640);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it.each(Object.entries(PROCESSES))(
    'runs the %s from dist/ as the svcws user with the environment file, restart and hardening',
    (name, bin) => {
      const keys = keysOf(readFileSync(join(UNITS, `svcws-${name}.service`), 'utf8'));

      expect(keys.get('ExecStart')).toBe(`/usr/bin/node dist/bin/${bin}.js`);
      expect(existsSync(join(ROOT, 'src/bin', `${bin}.ts`))).toBe(true);
      expect(keys.get('User')).toBe('svcws');
      expect(keys.get('EnvironmentFile')).toBe('/etc/svcws-listener/env');
      expect(keys.get('Restart')).toBe('on-failure');
      expect(keys.get('KillSignal')).toBe('SIGTERM');
      expect(keys.get('NoNewPrivileges')).toBe('yes');
      expect(keys.get('ProtectSystem')).toBe('strict');
      expect(keys.get('ProtectHome')).toBe('yes');
      expect(keys.get('CapabilityBoundingSet')).toBe('');
    },
  );

  it('lets the listener and the worker write only in their state directory: the spool and RECORDS_DIR', () => {
    const worker = keysOf(readFileSync(join(UNITS, 'svcws-worker.service'), 'utf8'));
    const listener = keysOf(readFileSync(join(UNITS, 'svcws-listener.service'), 'utf8'));

    expect(worker.get('StateDirectory')).toBe('svcws-listener');
    expect(readFileSync(join(UNITS, 'svcws-worker.service'), 'utf8')).toContain(
      'Environment=RECORDS_DIR=/var/lib/svcws-listener/records',
    );
    // systemd sets STATE_DIRECTORY, and the listener spools in its spool/ (src/config.ts).
    expect(listener.get('StateDirectory')).toBe('svcws-listener');
    expect(listener.has('ReadWritePaths')).toBe(false);
    const console = keysOf(readFileSync(join(UNITS, 'svcws-console.service'), 'utf8'));
    expect(console.has('StateDirectory')).toBe(false);
    expect(readFileSync(join(UNITS, 'svcws.sysusers.conf'), 'utf8')).toMatch(/^u svcws /m);
  });

  it('binds the listener and the worker metrics to the loopback, behind the proxy on the host', () => {
    const listener = readFileSync(join(UNITS, 'svcws-listener.service'), 'utf8');
    const worker = readFileSync(join(UNITS, 'svcws-worker.service'), 'utf8');

    expect(listener).toContain('Environment=HOST=127.0.0.1');
    expect(worker).toContain('Environment=WORKER_METRICS_HOST=127.0.0.1');
  });
});
