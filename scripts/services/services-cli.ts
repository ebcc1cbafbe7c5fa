import { spawn } from 'node:child_process';
import { installMissing, MissingServicesError } from './install-missing';
import { NEEDED_BY_CI, NEEDED_BY_TESTS, PRIVATE_SERVERS } from './service-table';
import { startPrivateServers } from './start-private-servers';

const USAGE = `usage: tsx scripts/services/services-cli.ts <command>
  install [--ci]                 install what npm test needs (--ci: the image check's tools too)
  run <name,…> -- <command …>    start those private servers (${PRIVATE_SERVERS.map((kind) => kind.name).join(', ')}),
                                 run the command with their addresses (TEST_REDIS_URL, …), stop them`;

const say = (line: string): void => {
  process.stdout.write(`--- ${line}\n`);
};

async function runWithServers(names: string, command: readonly string[]): Promise<number> {
  const wanted = names.split(',');
  const kinds = PRIVATE_SERVERS.filter((kind) => wanted.includes(kind.name));
  const unknown = wanted.filter((name) => !PRIVATE_SERVERS.some((kind) => kind.name === name));
  if (unknown.length > 0 || command.length === 0)
    throw new Error(`${unknown.join(', ')}\n${USAGE}`);
  const servers = await startPrivateServers(kinds);
  say(`private ${kinds.map((kind) => kind.name).join(', ')} started`);
  try {
    const [program = '', ...args] = command;
    const child = spawn(program, args, {
      stdio: 'inherit',
      env: { ...process.env, ...servers.env },
    });
    return await new Promise<number>((resolve) => {
      child.once('error', () => resolve(127));
      child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
    });
  } finally {
    await servers.stop();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'install') {
    installMissing(rest.includes('--ci') ? NEEDED_BY_CI : NEEDED_BY_TESTS, say);
    return 0;
  }
  if (command === 'run' && rest[1] === '--') return runWithServers(rest[0] ?? '', rest.slice(2));
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `${error instanceof MissingServicesError ? '' : 'services: '}${message}\n`,
    );
    process.exit(1);
  },
);
