/**
 * The operator console: sign-in and roles (auth/), the JSON API (api/), the pages (pages/) and the
 * data they read (data/). The console process wires it from these pieces.
 */
export { createConsoleApp } from './create-console-app';
export { createConsoleAuth } from './auth/console-auth';
export { trustedAddresses } from './auth/trusted-addresses';
export type { ConsoleAuth } from './auth/console-auth';
export { loadConsoleRolesFile, loadConsoleTokensFile } from './auth/console-access-files';
/** The digest a tokens file keeps (the console-token command, tests): the one in http/. */
export { sha256Hex } from '../http/token-matcher';
export { ConsoleRole } from './auth/principal';
export { createConsoleActions } from './data/console-actions';
export type { ConsoleHistory } from './data/console-history';
export { openConsoleQueues } from './data/console-queues';
export type { ConsoleQueues } from './data/console-queues';
export { createConsoleHistory } from './data/create-console-history';
export type { OverviewSources } from './data/read-overview';
