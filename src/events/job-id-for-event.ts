/**
 * BullMQ job id for an event id. BullMQ refuses ids that contain `:` or are all digits (the
 * platform's ids are all digits), so the id is prefixed and percent-encoded: one event id, one job
 * id, and two different event ids never share one.
 */
export function jobIdForEvent(eventId: string): string {
  try {
    return `evt-${encodeURIComponent(eventId)}`;
  } catch {
    // A lone surrogate (JSON can carry "\ud800") is refused by encodeURIComponent.
    return `evt-${encodeLoneSurrogates(eventId)}`;
  }
}

/**
 * Percent-encodes as encodeURIComponent does, and writes a lone surrogate as `%uD800`:
 * encodeURIComponent never writes `%u`, so this stays one-to-one.
 */
function encodeLoneSurrogates(id: string): string {
  let out = '';
  for (let i = 0; i < id.length; i += 1) {
    const code = id.charCodeAt(i);
    const next = id.charCodeAt(i + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(id.slice(i, i + 2));
      i += 1;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      out += `%u${code.toString(16).toUpperCase()}`;
    } else {
      out += encodeURIComponent(id.charAt(i));
    }
  }
  return out;
}
