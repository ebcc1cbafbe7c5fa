import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const PRODUCT = 'svcws-listener';

/**
 * `svcws-listener/<version>`, the version from the product's package.json: read once, when a
 * process starts routing, and passed in (startRouting's `userAgent`). The file is looked for
 * from this module's folder upwards (src/routes, dist/routes, or a build of its own elsewhere
 * under the repository); none found: `svcws-listener/unknown`.
 */
export function productUserAgent(from = __dirname): string {
  for (let folder = from; ; folder = dirname(folder)) {
    const version = productVersionIn(join(folder, 'package.json'));
    if (version !== undefined) return `${PRODUCT}/${version}`;
    if (dirname(folder) === folder) return `${PRODUCT}/unknown`;
  }
}

/** The version of package.json at `path` if it is the product's own. */
function productVersionIn(path: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { name, version } = parsed as { name?: unknown; version?: unknown };
  return name === PRODUCT && typeof version === 'string' ? version : undefined;
}
