import { existsSync } from 'node:fs';

/*
 * Preloaded by the npm scripts (`node --import ./dist/bin/env-file.js dist/bin/web.js`), before
 * any module of the process reads the environment (the tracing set-up reads it as it loads): the
 * working directory's `.env` into process.env when it exists, a variable already set winning.
 * Node's own `--env-file-if-exists` says `.env not found. Continuing without it.` on stderr when
 * there is none, on every start: a line that is not JSON on the process's log stream
 * (docs/logs.md). process.loadEnvFile (Node >= 20.12) reads the same format and says nothing.
 */
const ENV_FILE = '.env';

if (existsSync(ENV_FILE)) process.loadEnvFile(ENV_FILE);
