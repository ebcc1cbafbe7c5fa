import { LogLevel } from '../config';
import { createLogger } from '../logger';
import { runCli } from '../cli/run-cli';

// Piped into `head` and the like: once the reader is gone, stop quietly as other Unix tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

/** Composition root of `npm run events -- <command>`: process globals in, an exit status out. */
runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  outBytes: (bytes) => process.stdout.write(bytes),
  // An operator action's one JSON line (docs/logs.md): on stderr, the answer keeps stdout.
  logger: createLogger({
    level: LogLevel.catch('info').parse(process.env.LOG_LEVEL),
    name: 'cli',
    destination: process.stderr,
  }),
})
  .then((status) => {
    process.exitCode = status;
  })
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
