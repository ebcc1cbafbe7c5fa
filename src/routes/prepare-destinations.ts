import { prepareArchiveDirSync } from './destinations/file';
import { StartupFileError } from '../startup/startup-file-error';
import { ROUTES_FILE } from './load-routes-file';
import type { Route } from './routes-file';

/**
 * What can be checked of the destinations before the first event, without a broker: each file
 * destination's directory is created and must be writable. A problem stops the start like a bad
 * routes file, naming the route and the field (and the errno code, never the path's value).
 */
export function prepareDestinations(routes: readonly Route[]): void {
  const problems: string[] = [];
  for (const route of routes) {
    if (route.to.kind !== 'file') continue;
    try {
      prepareArchiveDirSync(route.to.options);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      problems.push(
        `route "${route.name}": to.file.dir: the directory cannot be created or written (${code})`,
      );
    }
  }
  if (problems.length > 0) throw new StartupFileError(ROUTES_FILE, problems);
}
