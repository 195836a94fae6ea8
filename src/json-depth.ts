/**
 * @module http/json-depth — how deeply a JSON text nests, found by one scan of its characters
 * before it is parsed, so nothing that walks a value recursively (validation, canonical JSON,
 * hashing, stringify) ever meets one deep enough to exhaust the stack.
 */

/** Arrays and objects deeper than this are refused (real bodies nest a handful of levels). */
export const MAX_JSON_DEPTH = 64;

/** Whether `text` opens more than `limit` arrays or objects inside one another (strings skipped; the text need not be valid JSON). */
export function nestsDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** A JSON-RPC body's parse: the value, or `undefined` when the text is not JSON or nests past the limit (both a parse error). */
export function parseBoundedJson(text: string): { readonly value: unknown } | undefined {
  if (nestsDeeperThan(text)) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}
