import { XMLParser } from 'fast-xml-parser';
import { isRecord } from './is-record';

/** One entry of the platform's `errorList` (docs/platform-shapes.md, "Error body"). */
export interface PlatformError {
  readonly code: string;
  readonly message: string | undefined;
  readonly trackingId: string | undefined;
}

/** What could be read from a non-2xx body; every field may be missing. */
export interface ParsedErrorBody {
  /** `json`, `xml`, or `unreadable` (empty, HTML, invalid, a DOCTYPE, an unknown shape). */
  readonly form: 'json' | 'xml' | 'unreadable';
  readonly errors: readonly PlatformError[];
}

const UNREADABLE: ParsedErrorBody = { form: 'unreadable', errors: [] };

/**
 * Reads the platform's error body defensively (spec §7 rule 6: the shape is not shown). Accepts the
 * JSON body, the same wrapped in `web_service_result`, `error` as one object instead of an array,
 * and the XML form. Anything else (empty, HTML from a gateway, invalid JSON, a DOCTYPE) yields no
 * errors instead of throwing: the caller still has the status.
 */
export function parseErrorBody(text: string, contentType: string | undefined): ParsedErrorBody {
  const trimmed = text.trim();
  if (trimmed === '') return UNREADABLE;
  const looksXml = trimmed.startsWith('<') || /\bxml\b/i.test(contentType ?? '');
  if (looksXml) return fromXml(trimmed);
  return fromJson(trimmed);
}

function fromJson(text: string): ParsedErrorBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return UNREADABLE;
  }
  const errors = errorsOf(value);
  return errors.length > 0 ? { form: 'json', errors } : UNREADABLE;
}

function fromXml(text: string): ParsedErrorBody {
  // A DOCTYPE can declare entities; an error body has no use for one, and HTML pages start with one.
  if (/<!DOCTYPE/i.test(text)) return UNREADABLE;
  const parser = new XMLParser({
    processEntities: false,
    ignoreAttributes: true,
    removeNSPrefix: true,
    parseTagValue: false,
    trimValues: true,
  });
  let value: unknown;
  try {
    value = parser.parse(text, true);
  } catch {
    return UNREADABLE;
  }
  const errors = errorsOf(value);
  return errors.length > 0 ? { form: 'xml', errors } : UNREADABLE;
}

/** `{errorList: {error: …}}`, possibly under `web_service_result`, `error` an array or one object. */
function errorsOf(value: unknown): PlatformError[] {
  if (!isRecord(value)) return [];
  const root = isRecord(value['web_service_result']) ? value['web_service_result'] : value;
  const list = root['errorList'];
  if (!isRecord(list)) return [];
  const entries = Array.isArray(list['error']) ? list['error'] : [list['error']];
  const errors: PlatformError[] = [];
  for (const entry of entries) {
    if (!isRecord(entry)) continue;
    const code = scalar(entry['errorCode']);
    if (code === undefined) continue;
    errors.push({
      code,
      message: scalar(entry['errorMessage']),
      trackingId: scalar(entry['trackingId']),
    });
  }
  return errors;
}

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}
