import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `svcws-listener/<version>`, the version from the product's package.json: read once, when a
 * process starts routing, and passed in (startRouting's `userAgent`). The file is two folders up
 * from here both in src/routes and in dist/routes.
 */
export function productUserAgent(
  packageJson = join(__dirname, '..', '..', 'package.json'),
): string {
  const parsed: unknown = JSON.parse(readFileSync(packageJson, 'utf8'));
  const version =
    typeof parsed === 'object' && parsed !== null && 'version' in parsed
      ? String(parsed.version)
      : 'unknown';
  return `svcws-listener/${version}`;
}
