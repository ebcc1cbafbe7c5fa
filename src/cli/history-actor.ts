import { userInfo } from 'node:os';

/** Who runs a CLI command, as the audit names them: `cli:<login>`. */
export function historyActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli:unknown';
  }
}
