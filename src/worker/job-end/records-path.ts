import { join, resolve } from 'node:path';

export type DownloadFormat = 'XML' | 'BINARY';

/** XML is a MARCXML collection, BINARY is ISO 2709 records back to back. */
const EXTENSION: Readonly<Record<DownloadFormat, string>> = { XML: 'xml', BINARY: 'mrc' };

export interface RecordsPathParts {
  readonly institution: string;
  readonly jobId: string;
  readonly instanceId: string;
  readonly lineType: string;
  readonly format: DownloadFormat;
}

/**
 * `RECORDS_DIR/<institution>/<job_id>/<instance_id>/<line_type>.xml|.mrc`. Every part comes from
 * the event or the service, so each is reduced to one safe path segment first: the file can never
 * land outside RECORDS_DIR, whatever an id holds.
 */
export function recordsPath(root: string, parts: RecordsPathParts): string {
  return join(
    resolve(root),
    safeSegment(parts.institution),
    safeSegment(parts.jobId),
    safeSegment(parts.instanceId),
    `${safeSegment(parts.lineType)}.${EXTENSION[parts.format]}`,
  );
}

/**
 * Letters, digits, `_`, `-` and `.` stay; anything else (`/`, `\`, NUL, spaces) becomes `_`. A
 * segment made only of dots (`.`, `..`) or nothing becomes `_`, and a long one is cut at 100.
 */
export function safeSegment(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);
  return /^\.*$/.test(cleaned) ? '_' : cleaned;
}
