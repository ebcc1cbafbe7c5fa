/**
 * How deep a delivery may nest (objects and arrays in JSON, elements in XML; the root counts as 1).
 * Platform payloads nest fewer than 10 levels. A deeper body is refused as invalid (400) by the
 * parsers, which count without recursion, so nothing after them can overflow the stack.
 */
export const MAX_NESTING_DEPTH = 200;
