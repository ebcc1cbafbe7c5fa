import type { SandboxArea } from '../sandbox-context';

/**
 * The platform areas other than jobs (jobs is built by create-sandbox with its store, since the
 * admin routes and the webhooks share it). Each file exports one `SandboxArea`.
 */
export const platformAreas: readonly SandboxArea[] = [];
